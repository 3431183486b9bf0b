"""Pure parsing of model output (code, JSON, reviews, plans, generated tests); no LLM, no I/O."""
