"""Training cutoffs kept with a batch run (`batch --cutoff MODEL=DATE`): stored in its config, checked as dates,
and read back by `stats` for the contamination window (real SQLite store)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from pydantic import ValidationError

from execugraph.batch.control import enqueue_batch
from execugraph.batch.spec import BatchSpec
from execugraph.cli.batch import _spec_from_args, configure_batch
from execugraph.cli.windows import stored_cutoffs
from execugraph.store import Store


def test_cutoffs_are_kept_in_the_run_config_and_read_back(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    configure_batch(parser)
    args = parser.parse_args(["--problems", "fib", "--conditions", "single-oneshot",
                              "--cutoff", "ollama:qwen2.5-coder:7b=2024-03-01", "--cutoff", "embedded=2023-10-31"])
    spec = _spec_from_args(args)
    assert spec.model_cutoffs == {"ollama:qwen2.5-coder:7b": "2024-03-01", "embedded": "2023-10-31"}
    with Store.open(str(tmp_path / "c.db")) as store:
        with_cutoffs = enqueue_batch(store, spec)
        without = enqueue_batch(store, spec.model_copy(update={"model_cutoffs": {}}))
        assert store.get_run(with_cutoffs).config["batch"]["model_cutoffs"] == spec.model_cutoffs
        assert "model_cutoffs" not in store.get_run(without).config["batch"]  # runs without stay as before
        assert stored_cutoffs(store, [str(with_cutoffs), str(without)]) == spec.model_cutoffs
        assert stored_cutoffs(store, [str(without)]) == {}


def test_a_cutoff_in_another_format_is_refused_naming_the_model() -> None:
    with pytest.raises(ValidationError, match=r"model_cutoffs\['m'\]: '2024/03/01' is not a date in YYYY-MM-DD"):
        BatchSpec(model_cutoffs={"m": "2024/03/01"})
    parser = argparse.ArgumentParser()
    configure_batch(parser)
    with pytest.raises(ValueError, match="--cutoff 'm=March 2024'"):
        _spec_from_args(parser.parse_args(["--cutoff", "m=March 2024"]))
