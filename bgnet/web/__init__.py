"""``bgnet web``: the browser app (apps layer).

:mod:`bgnet.web.session` holds a game against bgnet driven by HTTP calls,
:mod:`bgnet.web.app` the Starlette app (pages, assets, JSON API); the
assets are plain files in ``static/`` (no build step, nothing fetched
from elsewhere).  Starlette and uvicorn are the ``web`` extra: only
``bgnet web`` imports this package.
"""
