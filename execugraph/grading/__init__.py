"""The grading rule (which tests, which protocol, what passes), CPU-time calibration and suite-file caps."""
