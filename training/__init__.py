"""bgnet's TD(lambda) self-play training pipeline (imports bgnet; bgnet never imports it)."""
