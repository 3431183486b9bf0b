"""Tests of the stand-in servers (standins/) the other tests and the benches talk to."""
