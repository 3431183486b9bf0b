"""ExecuGraph: execution-grounded multi-agent code synthesis, measured."""

__version__ = "0.1.0"
