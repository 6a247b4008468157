"""memagent.graph."""
