"""Reading the settings: the composition root's one door to the environment.

``get_settings`` reads ``MEMAGENT_*`` and ``.env`` once per process. Only the
composition root (CLI, Studio factories, agent lifecycle) calls it; every layer
below receives the resulting ``Settings`` as an argument.
"""

from __future__ import annotations

from functools import lru_cache

from memagent.core.settings import Settings

__all__ = ["Settings", "get_settings", "load_settings"]


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once."""
    return Settings()


def load_settings() -> Settings:
    """Read the environment now and make the result the process's settings: what one CLI
    command does at its start (a command is one run of the app, in-process or not)."""
    get_settings.cache_clear()
    return get_settings()
