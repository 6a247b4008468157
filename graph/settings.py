"""Reading the settings: the composition root's one door to the environment.

``get_settings`` reads ``MEMAGENT_*`` and ``.env`` once per process. Only the
composition root (CLI, Studio factories, agent lifecycle) calls it; every layer
below receives the resulting ``Settings`` as an argument.
"""

from __future__ import annotations

from functools import lru_cache

from memagent.core.settings import Settings

__all__ = ["Settings", "get_settings"]


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once."""
    return Settings()
