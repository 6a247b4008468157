"""Reading the settings: the composition root's one door to the environment.

``get_settings`` reads ``MEMAGENT_*`` and ``.env`` once per process. Only the
composition root (CLI, Studio factories, agent lifecycle) calls it; every layer
below receives the resulting ``Settings`` as an argument. An invalid value is a
``SettingsError`` whose message names the variable (``MEMAGENT_RECALL='bogus': ...``),
never a pydantic dump; ``load_settings_lenient`` (for ``memagent doctor``) reports the
bad variables and carries on with their defaults.
"""

from __future__ import annotations

from functools import lru_cache

from pydantic import ValidationError

from memagent.core.settings import (
    ENV_PREFIX,
    Settings,
    SettingsError,
    describe_errors,
    env_name,
    unknown_variables,
)

__all__ = [
    "ENV_PREFIX",
    "Settings",
    "SettingsError",
    "env_name",
    "get_settings",
    "load_settings",
    "load_settings_lenient",
    "read_settings",
    "unknown_variables",
]


def read_settings() -> Settings:
    """Settings from the environment and ``.env``; ``SettingsError`` names what is wrong."""
    try:
        return Settings()
    except ValidationError as exc:
        raise SettingsError(describe_errors(exc)[0]) from None


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once (``SettingsError`` when one is invalid)."""
    return read_settings()


def load_settings() -> Settings:
    """Read the environment now and make the result the process's settings: what one CLI
    command does at its start (a command is one run of the app, in-process or not).
    ``SettingsError`` names what is wrong."""
    get_settings.cache_clear()
    return get_settings()


def load_settings_lenient() -> tuple[Settings, list[str]]:
    """The settings with every invalid variable replaced by its default, and one line per
    invalid variable (``memagent doctor`` reports them and checks the rest)."""
    try:
        return Settings(), []
    except ValidationError as exc:
        problems, fields = describe_errors(exc)
    defaults = {
        f: Settings.model_fields[f].get_default(call_default_factory=True)
        for f in fields
        if f in Settings.model_fields
    }
    return Settings(**defaults), problems
