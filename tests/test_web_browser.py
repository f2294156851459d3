"""``bgnet web`` in a real browser: Debian's chromium driven by Selenium through the system chromedriver.

No browser is downloaded: the driver's path is given, so Selenium Manager
never runs.  Without ``chromium`` and ``chromium-driver`` (``apt-get install
chromium chromium-driver``; ``.ci/run`` installs them where it can) these
tests skip with that reason.  The bot is the shipped network at 0-ply, so a
whole game takes seconds.

With ``BGNET_WEB_SCREENSHOTS=DIR`` the tests save ``web-play.png`` and
``web-analysis.png`` there (``docs/`` holds the committed ones).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web extra (starlette, uvicorn) is not installed")
pytest.importorskip("uvicorn", reason="the web extra (starlette, uvicorn) is not installed")
pytest.importorskip("selenium", reason="selenium is not installed (pip install 'bgnet[dev]')")

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402
from test_web import serving  # noqa: E402

from bgnet.commands.analyze import analyze, parse_input  # noqa: E402
from bgnet.dice import Dice  # noqa: E402
from bgnet.formats import position_id  # noqa: E402
from bgnet.notation import legal_plays  # noqa: E402
from bgnet.players import NetPlayer  # noqa: E402
from bgnet.position import STARTING, Position, flip  # noqa: E402
from bgnet.web.app import create_app  # noqa: E402

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver") or (
    "/usr/lib/chromium/chromedriver" if os.path.exists("/usr/lib/chromium/chromedriver") else None
)
if not (CHROMIUM and CHROMEDRIVER):
    pytest.skip(
        "Debian's chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)",
        allow_module_level=True,
    )

START = "4HPwATDgc/ABMA"
XGID = "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:3:2:0:7:10"


@pytest.fixture(scope="module")
def bot():
    return NetPlayer.from_checkpoint(None, ply=0)


@pytest.fixture(scope="module")
def url(bot):
    with serving(create_app(bot)) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,900"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_script_timeout(60)
    yield driver
    driver.quit()


def shots() -> Path | None:
    where = os.environ.get("BGNET_WEB_SCREENSHOTS")
    return Path(where) if where else None


def wait_ready(driver, what: str = "state", timeout: float = 60):
    WebDriverWait(driver, timeout).until(
        lambda d: d.execute_script(f"return !!(window.bgnet && window.bgnet.ready && window.bgnet.{what})")
    )
    return driver.execute_script(f"return window.bgnet.{what}")


def shown_board(driver) -> list[int]:
    return json.loads(driver.find_element(By.ID, "board").get_attribute("data-board"))


def step_board(board: np.ndarray, src: int, dst: int) -> np.ndarray:
    """The person's board (their view) after one checker step."""
    b = board.copy()
    b[src] -= 1
    if dst > 0:
        if b[dst] == -1:
            b[dst] = 0
            b[0] -= 1
        b[dst] += 1
    return b


def theirs_step(board: np.ndarray, src: int, dst: int) -> np.ndarray:
    """The person's board after one step of bgnet's (in bgnet's numbering)."""
    return -step_board(-board[::-1], src, dst)[::-1]


def click(driver, slot: int) -> None:
    # The tray is where checkers go off, and where acey-deucey's waiting checkers (slot 26) come from.
    driver.find_element(By.ID, "pt-off" if slot in (0, 26) else f"pt-{slot}").click()


def test_a_whole_game_played_by_clicks(browser, url):
    rng = np.random.default_rng(5)
    browser.get(f"{url}/?speed=0&seed=21")
    moves = checked = 0
    before = STARTING.board.tolist()  # the board before this call's events (the same from either side)
    for _ in range(400):
        state = wait_ready(browser)
        assert shown_board(browser) == state["board"]
        # bgnet's plays of this call, step by step, lead from the board our action left to the board shown.
        for ev in state["events"]:
            if ev["kind"] == "move" and ev["who"] == "bgnet":
                b = np.array(before, dtype=np.int8)
                for f, t in ev["steps"]:
                    b = theirs_step(b, f, t)
                assert b.tolist() == ev["board"], ev
                before = ev["board"]
                checked += 1
        assert before == state["board"]
        if state["phase"] == "over":
            break
        assert state["actor"] == "you"
        if state["phase"] == "roll":
            browser.find_element(By.ID, "roll").click()
            continue
        if state["phase"] == "doubled":
            browser.find_element(By.ID, "take").click()
            continue
        board = np.array(state["board"], dtype=np.int8)
        plays = legal_plays(Position(board), Dice.of(*state["dice"]))
        play = plays[int(rng.integers(len(plays)))]
        if moves == 3 and shots():
            browser.find_element(By.ID, "hint").click()
            wait_ready(browser, "state")
            WebDriverWait(browser, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#hintbox #plays"))
        partial = board
        for i, (f, t) in enumerate(play.steps):
            click(browser, f)
            if moves == 3 and i == 0 and shots():
                shots().mkdir(parents=True, exist_ok=True)
                browser.save_screenshot(str(shots() / "web-play.png"))
            click(browser, t)
            partial = step_board(partial, f, t)
            assert shown_board(browser) == partial.tolist(), f"after {f}/{t} of {play.notation}"
        # The board walked to is the legal play's result: confirm it.
        assert partial.tolist() == flip(play.position.board).tolist()
        assert "Confirm?" in browser.find_element(By.ID, "status").text
        browser.find_element(By.ID, "confirm").click()
        before = partial.tolist()
        moves += 1
    else:
        raise AssertionError("the game did not end")
    assert state["result"]["points"] >= 1
    assert state["result"]["text"] in browser.find_element(By.ID, "status").text
    assert moves >= 5 and checked >= moves
    log = browser.find_element(By.ID, "log").text
    assert "you play" in log and "bgnet rolls" in log


def test_undo_takes_back_a_step_and_a_checker_can_be_dragged(browser, url):
    browser.get(f"{url}/static/style.css")  # the same origin: this tab's session is forgotten
    browser.execute_script("sessionStorage.clear()")
    browser.get(f"{url}/?speed=0&seed=3")
    state = wait_ready(browser)
    if state["phase"] == "roll":
        browser.find_element(By.ID, "roll").click()
        state = wait_ready(browser)
    board = np.array(state["board"], dtype=np.int8)
    play = legal_plays(Position(board), Dice.of(*state["dice"]))[0]
    f, t = play.steps[0]
    click(browser, f)
    dests = browser.find_elements(By.CSS_SELECTOR, "polygon.dest")
    assert dests  # the legal destinations are highlighted
    click(browser, t)
    assert shown_board(browser) == step_board(board, f, t).tolist()
    browser.find_element(By.ID, "undo").click()
    assert shown_board(browser) == board.tolist()
    # The same step by dragging the checker to its point.
    source = browser.find_element(By.ID, f"pt-{f}")
    target = browser.find_element(By.ID, "pt-off" if t == 0 else f"pt-{t}")
    a, b = source.rect, target.rect  # the board is drawn anew on the press: move by coordinates
    dx = round(b["x"] + b["width"] / 2 - (a["x"] + a["width"] / 2))
    dy = round(b["y"] + b["height"] / 2 - (a["y"] + a["height"] / 2))
    ActionChains(browser).move_to_element(source).click_and_hold().move_by_offset(dx, dy).release().perform()
    assert shown_board(browser) == step_board(board, f, t).tolist()


def test_the_analysis_page_shows_the_ranking_and_the_cube_decision(browser, url, bot):
    browser.get(f"{url}/analysis?position={START}&dice=31&ply=0")
    wait_ready(browser, "analysis")
    wait_ready(browser, "cube")
    rows = browser.find_elements(By.CSS_SELECTOR, "#plays tbody tr")
    position, dice, ctx = parse_input(START, "31", None, None)
    expected = analyze(bot.evaluator, position, dice, ctx, 0)
    assert len(rows) == len(expected["plays"])
    for row, play in zip(rows, expected["plays"], strict=True):
        cells = [c.text for c in row.find_elements(By.TAG_NAME, "td")]
        assert cells[1] == play["play"]
        assert float(cells[3]) == pytest.approx(play["equity"], abs=1e-4)
    assert browser.find_element(By.ID, "pid").text == START
    assert browser.find_element(By.ID, "xgid").text.startswith("XGID=-b----E-C---eE---c-e----B-:")
    cube = analyze(bot.evaluator, position, None, ctx, 0)["cube"]
    assert browser.find_element(By.ID, "cubeaction").text == cube["action"]
    assert shown_board(browser) == [int(x) for x in position.board]
    # Paste an XGID (a 7-point match, cube on 2) and ask again: the match's cube decision.
    done = (
        "const a = window.bgnet.analysis;"
        "return window.bgnet.ready && a.position === arguments[0] && a.dice && a.dice[0] === 6"
    )
    box = browser.find_element(By.ID, "position")
    box.clear()
    box.send_keys(XGID)
    browser.find_element(By.ID, "dice").clear()
    browser.find_element(By.ID, "dice").send_keys("64")
    browser.find_element(By.ID, "go").click()
    pasted = parse_input(XGID, None, None, None)[0]
    WebDriverWait(browser, 60).until(lambda d: d.execute_script(done, position_id(pasted.board)))
    first = browser.find_element(By.CSS_SELECTOR, "#plays tbody tr td:nth-child(2)").text
    position, dice, ctx = parse_input(XGID, "64", None, None)
    assert first == analyze(bot.evaluator, position, dice, ctx, 0)["plays"][0]["play"]
    assert "MWC" in browser.find_element(By.ID, "cubebox").text
    assert browser.find_element(By.ID, "xgid").text == XGID
    if shots():
        shots().mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(shots() / "web-analysis.png"))
    # A position set up by hand: a race, two white checkers on the 1-point, two black on their 1-point.
    browser.find_element(By.ID, "edit").click()
    browser.find_element(By.ID, "clear").click()
    click(browser, 1)
    click(browser, 1)
    browser.find_element(By.CSS_SELECTOR, "#editmode option[value=black]").click()
    click(browser, 24)
    click(browser, 24)
    board = np.zeros(26, dtype=np.int8)
    board[1], board[24] = 2, -2
    assert shown_board(browser) == board.tolist()
    browser.find_element(By.ID, "done").click()
    WebDriverWait(browser, 60).until(lambda d: d.execute_script(done, position_id(board)))
    assert browser.find_element(By.ID, "pid").text == position_id(board)
    assert browser.find_element(By.ID, "position").get_attribute("value") == position_id(board)
    top = browser.find_element(By.CSS_SELECTOR, "#plays tbody tr td:nth-child(2)").text
    assert top == "1/off(2)"  # 6-4 bears both off
    # Bad input: the problem is named on the page.
    box = browser.find_element(By.ID, "position")
    box.clear()
    box.send_keys("not-a-position")
    browser.find_element(By.ID, "go").click()
    WebDriverWait(browser, 30).until(lambda d: "Position ID" in d.find_element(By.ID, "error").text)


# -- the variants: pins, same-direction games, the legal plays list --------------------------------


def variant_step(board: np.ndarray, src: int, dst: int, capture: str) -> np.ndarray:
    """The person's variant board (52 slots, their view) after one checker step, by the rules of the
    docs (written here again, independently of the page): a hit sends a lone checker to the bar, a pin
    keeps it under ours (slot 25 + p), leaving a pinning point frees it."""
    b = board.copy()
    if src == 26:  # a waiting checker enters
        b[50] -= 1
    else:
        b[src] -= 1
    if 1 <= src <= 24 and b[src] == 0 and b[25 + src] < 0:
        b[src], b[25 + src] = -1, 0
    if dst > 0:
        if b[dst] == -1 and b[25 + dst] == 0 and capture == "hit":
            b[dst], b[0] = 0, b[0] - 1
        elif b[dst] == -1 and b[25 + dst] == 0 and capture == "pin":
            b[dst], b[25 + dst] = 0, -1
        b[dst] += 1
    return b


@pytest.fixture(scope="module")
def variant_url(bot):
    with serving(create_app(bot, variant_bot="greedy")) as base:
        yield base


@pytest.mark.parametrize("label, seed", [("plakoto", 4), ("fevga", 9), ("acey-deucey", 2)])
def test_a_whole_variant_game_played_by_clicks(browser, variant_url, label, seed):
    from bgnet.variant_format import legal_variant_plays
    from bgnet.variants import variant

    game = variant(label)
    rng = np.random.default_rng(seed)
    browser.get(f"{variant_url}/static/style.css")  # the same origin: this tab's session is forgotten
    browser.execute_script("sessionStorage.clear()")
    browser.get(f"{variant_url}/?speed=0&seed={seed}&variant={label}")
    moves = pins = 0
    for _ in range(400):
        state = wait_ready(browser)
        assert state["variant"] == label and shown_board(browser) == state["board"]
        if state["phase"] == "over":
            break
        board = np.array(state["board"], dtype=np.int8)
        if (board[26:50] != 0).any():  # a pinned checker is drawn, in its owner's colour
            pins += 1
            drawn = browser.find_elements(By.CSS_SELECTOR, "circle.pinned")
            assert len(drawn) == int((board[26:50] != 0).sum())
        plays = legal_variant_plays(game, board, Dice.of(*state["dice"]))
        play = plays[int(rng.integers(len(plays)))]
        if state["dice"] == [2, 1] and label == "acey-deucey":
            # A 1-2 and a double: thousands of whole turns, more than the list holds: typed.
            assert state["legal_total"] == len(plays) >= len(state["legal"])
            browser.find_element(By.ID, "typed").send_keys(play.notation)
            browser.find_element(By.ID, "playtyped").click()
            moves += 1
            continue
        if moves % 5 == 4:  # now and then from the list of legal plays instead of clicks
            browser.find_element(By.CSS_SELECTOR, f"#legalplays option[value='{play.notation}']").click()
            browser.find_element(By.ID, "playlegal").click()
            moves += 1
            continue
        partial = board
        for f, t in play.steps:
            click(browser, f)
            click(browser, t)
            partial = variant_step(partial, f, t, state["rules"]["capture"])
            assert shown_board(browser) == partial.tolist(), f"after {f}/{t} of {play.notation}"
        assert partial.tolist() == game.flip(play.position).tolist()
        assert "Confirm?" in browser.find_element(By.ID, "status").text
        browser.find_element(By.ID, "confirm").click()
        moves += 1
    else:
        raise AssertionError("the game did not end")
    assert state["result"]["text"] in browser.find_element(By.ID, "status").text
    assert moves >= 5
    if label == "plakoto":
        assert pins, "no pin was ever on the board: the drawing of pins went untested"
    log = browser.find_element(By.ID, "log").text
    assert f"({label})" in log and "bgnet rolls" in log
