"""Configuration and the project's words: RunConfig, named conditions, environment settings, vocabulary."""
