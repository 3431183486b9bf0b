"""Hostile programs for the sandbox, and the host-side bait and checks that prove they were contained."""
