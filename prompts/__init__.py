"""memagent.prompts."""
