"""memagent.prompts: every prompt text, as constants. Imports nothing but ``core``."""
