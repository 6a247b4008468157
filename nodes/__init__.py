"""memagent.nodes."""
