"""`python -m execugraph reproduce` on a small published study (tests/support/published_study.py): every number of
reproduce.json against a hand computation (tests/support/study_hand.py), the report's sentences against those
numbers, the LaTeX tables structurally, a families file, reused rescores, and refused inputs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from execugraph.store import Store
from tests.stats.test_stats_family_and_tables import check_latex_table
from tests.support import cost_hand
from tests.support import published_study as S
from tests.support import study_hand as H

pytestmark = pytest.mark.integration

PROJECT = Path(__file__).resolve().parents[2]
INTERNAL = ("e1_so", "e2_sr", "e3_mf", "e4_bo5")
HUMAN = ("h1_so", "h2_mf")
FAMILIES = {"internal30, 10 problems": INTERNAL, "humaneval, 4 problems": HUMAN}


def _cli(db: Path, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "execugraph", "--db", str(db), "reproduce", *args, "--workers", "2"],
                          capture_output=True, text=True, timeout=timeout, cwd=PROJECT)


@dataclass
class Reproduced:
    root: Path
    db: Path
    out: Path
    folder: Path
    dataset: Path
    done: subprocess.CompletedProcess
    data: dict[str, Any]


@pytest.fixture(scope="module")
def reproduced(tmp_path_factory: pytest.TempPathFactory) -> Reproduced:
    root = tmp_path_factory.mktemp("reproduce")
    folder, dataset = S.write_study(root)
    db, out = root / "runs.db", root / "out"
    done = _cli(db, str(folder), "--dataset", str(dataset), "--out", str(out))
    assert done.returncode == 0, done.stderr
    return Reproduced(root, db, out, folder, dataset, done, json.loads((out / "reproduce.json").read_text()))


class Ledger:
    """Checks numbers of reproduce.json by path and remembers which were checked."""

    def __init__(self, data: dict) -> None:
        self.data = data
        self.checked: set[tuple] = set()

    def get(self, path: tuple) -> Any:
        value = self.data
        for key in path:
            value = value[key]
        return value

    def check(self, path: tuple, expected: Any) -> None:
        value = self.get(path)
        if isinstance(expected, float):
            assert value == pytest.approx(expected, abs=1e-9), (path, value, expected)
        else:
            assert value == expected, (path, value, expected)
        self.checked.add(path)

    def leaves(self, value: Any = None, path: tuple = ()) -> Iterator[tuple]:
        value = self.data if value is None and not path else value
        if isinstance(value, dict):
            for k, v in value.items():
                yield from self.leaves(v, (*path, k))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                yield from self.leaves(v, (*path, i))
        elif isinstance(value, int | float) and not isinstance(value, bool):
            yield path


def _names(data: dict) -> dict[str, str]:
    """folder -> arm name as the report shows it: the folder's own name, never a database id."""
    return {r["name"]: r["name"] for r in data["runs"]}


def _check_run(ledger: Ledger, i: int, arm: str, store: Store) -> None:
    run = ledger.data["runs"][i]
    assert run["name"] == arm
    assert "run_id" not in run and ledger.data["local"]["runs"][i]["name"] == arm
    ledger.check(("local", "runs", i, "run_id"), i + 1)  # a fresh database numbers the folders in order
    ledger.check(("runs", i, "trials"), len(H.records(arm)))
    ledger.check(("runs", i, "problems"), len(H.outcomes(arm, "published")))
    for vset in H.SETS:
        trials, passed, rate = H.rate(arm, vset)
        for key, value in (("passed", passed), ("trials", trials), ("pass_rate", rate)):
            ledger.check(("runs", i, vset, key), value)
    no_code = 1 if arm == "e2_sr" else 0
    for protocol in H.PROTOCOLS:
        section = run[protocol]
        assert "rescore_run" not in section and "reused_earlier_rescore" not in section
        child = store.get_run(ledger.data["local"]["runs"][i]["rescore_runs"][protocol])
        assert child.kind == "rescore" and child.parent_run_id == i + 1
        assert {t.grading_protocol for t in store.trials_for_run(child.id)} == {protocol}
        assert ledger.data["local"]["runs"][i]["reused_earlier_rescore"][protocol] is False
        ledger.checked.add(("local", "runs", i, "rescore_runs", protocol))
        rescored = len(H.records(arm)) - no_code
        ledger.check(("runs", i, protocol, "rescored"), rescored)
        ledger.check(("runs", i, protocol, "kept_as_published"), no_code)
        ledger.check(("runs", i, protocol, "reused_jobs"), H.reused_jobs()[(arm, protocol)])
        if no_code:
            ledger.check(("runs", i, protocol, "skipped", "no_code"), 1)
        ledger.check(("runs", i, protocol, "unresolved"), 0)
        flips = _flips(arm, protocol)
        ledger.check(("runs", i, protocol, "flips"), len(flips))
        ledger.check(("runs", i, protocol, "flips_by_cause"), {c: 1 * sum(1 for f in flips if f[1] == c)
                                                              for c in {f[1] for f in flips}})
        for cause in section["flips_by_cause"]:
            ledger.checked.add(("runs", i, protocol, "flips_by_cause", cause))
        assert sorted((f["problem_id"], f["causes"][0]) for f in section["flip_list"]) == sorted(flips)
        for j, flip in enumerate(section["flip_list"]):
            assert flip["reason"]
            ledger.check(("runs", i, protocol, "flip_list", j, "seed"), 0)
            ledger.check(("runs", i, protocol, "flip_list", j, "trial_index"), 0)
        ledger.check(("runs", i, protocol, "agreement", "rescored"), rescored)
        ledger.check(("runs", i, protocol, "agreement", "same"), rescored - len(flips))
        ledger.check(("runs", i, protocol, "agreement", "rate"), (rescored - len(flips)) / rescored)
        origin = "humaneval" if arm in HUMAN else "recorded"  # internal-30 graded by the given benchmark file
        ledger.check(("runs", i, protocol, "tests_from"), {origin: rescored})
        ledger.checked.add(("runs", i, protocol, "tests_from", origin))


def _flips(arm: str, protocol: str) -> list[tuple[str, str]]:
    """(problem, first cause) of every verdict that changes on rescoring, by design."""
    if arm == "e1_so":
        return [("climb_stairs", "not_graded_then")]
    if arm == "e2_sr":
        return [("lcs", "policy_changed")]
    if arm == "h1_so" and protocol == "standalone":
        return [(p, "protocol_changed") for p in S.NEEDS_PROMPT]
    return []


def _pairs(arms: tuple[str, ...]) -> list[tuple[str, str]]:
    return [(arms[i], arms[j]) for i in range(len(arms)) for j in range(i + 1, len(arms))]


PAIR_KEYS = ("n", "problems_differ", "majority_discordant", "delta_pp", "ci_lo", "ci_hi", "p_wilcoxon", "p_holm",
             "p_mcnemar", "p_holm_mcnemar")
CATEGORY_KEYS = ("n", "problems_differ", "a_rate", "b_rate", "delta_pp", "p_wilcoxon", "p_holm")


def _check_family(ledger: Ledger, f: int, name: str, arms: tuple[str, ...]) -> dict[str, list[dict]]:
    section = ledger.data["families"][f]
    assert section["name"] == name and section["mode"] == "all pairs"
    names = _names(ledger.data)
    assert section["runs"] == list(arms)
    pairs = _pairs(arms)
    hand = {vset: H.family(pairs, vset) for vset in H.SETS}
    for vset in H.SETS:
        ledger.check(("families", f, "holm_family_size", vset), len(pairs))
    for c, (a, b) in enumerate(pairs):
        comparison = section["comparisons"][c]
        assert (comparison["a"], comparison["b"]) == (names[a], names[b])
        for vset in H.SETS:
            for key in PAIR_KEYS:
                ledger.check(("families", f, "comparisons", c, vset, key), hand[vset][c][key])
            direction, significant = H.conclusion(hand[vset][c])
            ledger.check(("families", f, "comparisons", c, "conclusion", vset, "direction"), direction)
            assert comparison["conclusion"][vset]["significant"] is significant
            for k, row in enumerate(H.category_pairs(a, b, vset)):
                assert comparison["categories"][vset][k]["category"] == row["category"]
                for key in CATEGORY_KEYS:
                    ledger.check(("families", f, "comparisons", c, "categories", vset, k, key), row[key])
        for protocol in H.PROTOCOLS:
            same = H.conclusion(hand["published"][c]) == H.conclusion(hand[protocol][c])
            assert comparison["survives"][protocol] is same
    return hand


def _check_table(ledger: Ledger, key: str, expected: list[dict[str, Any]]) -> None:
    """Every cell of a table's rows against the hand rows (columns by key; CIs as [lo, hi])."""
    table = ledger.data["tables"][key]
    assert len(table["rows"]) == len(expected), key
    for r, row in enumerate(expected):
        for column in table["columns"]:
            value = row.get(column["key"])
            path = ("tables", key, "rows", r, column["key"])
            if isinstance(value, tuple):
                ledger.check((*path, 0), value[0])
                ledger.check((*path, 1), value[1])
            elif value is not None and column["kind"] != "text":
                ledger.check(path, value)
            else:
                assert ledger.get(path) == value, (path, ledger.get(path), value)


def _run_rows(data: dict) -> list[dict]:
    rows = []
    for arm in S.ARMS:
        flips = {p: len(_flips(arm, p)) for p in H.PROTOCOLS}
        rows.append({"run": arm, "benchmark": "humaneval" if arm in HUMAN else "internal30",
                     "trials": len(H.records(arm)), "published": H.rate(arm, "published")[2],
                     **{p: H.rate(arm, p)[2] for p in H.PROTOCOLS},
                     **{f"flips_{p}": flips[p] for p in H.PROTOCOLS}, "kept": 1 if arm == "e2_sr" else 0})
    return rows


def _flip_rows() -> list[dict]:
    rows = []
    causes = ["not_graded_then", "policy_changed", "protocol_changed"]
    for arm in S.ARMS:
        for protocol in H.PROTOCOLS:
            flips = _flips(arm, protocol)
            if flips:
                rows.append({"run": arm, "protocol": protocol, "flips": len(flips),
                             **{c: sum(1 for f in flips if f[1] == c) for c in causes}})
    return rows


def _family_tables(ledger: Ledger, slug: str, arms: tuple[str, ...], hand: dict[str, list[dict]]) -> None:
    names = _names(ledger.data)
    pairs = _pairs(arms)
    conclusions = []
    for c, (a, b) in enumerate(pairs):
        row: dict[str, Any] = {"a": names[a], "b": names[b], "n": hand["published"][c]["n"]}
        for vset in H.SETS:
            row[f"delta_{vset}"] = hand[vset][c]["delta_pp"]
            row[f"p_{vset}"] = hand[vset][c]["p_holm"]
            if vset != "published":
                row[f"survives_{vset}"] = "yes" if H.conclusion(hand["published"][c]) == H.conclusion(hand[vset][c]) \
                    else "no"
        conclusions.append(row)
    _check_table(ledger, f"{slug}-conclusions", conclusions)
    for vset in H.SETS:
        _check_table(ledger, f"{slug}-paired-{vset}", [
            {"a": names[a], "b": names[b], **{k: hand[vset][c][k] for k in ("n", "problems_differ",
                                                                              "majority_discordant", "delta_pp",
                                                                              "p_wilcoxon", "p_holm")},
             "ci": (hand[vset][c]["ci_lo"], hand[vset][c]["ci_hi"])}
            for c, (a, b) in enumerate(pairs)])
    categories = sorted({H.category(p) for arm in arms for p in H.outcomes(arm, "published")})
    reference = pairs[0] if len(pairs) == 1 else None
    rows = []
    for arm in arms:
        for cat in [*categories, "overall"]:
            problems = None if cat == "overall" else [p for p in H.outcomes(arm, "published") if H.category(p) == cat]
            trials, _, rate = H.rate(arm, "published", problems)
            row = {"arm": names[arm], "category": cat, "problems": trials // (5 if arm == "e4_bo5" else 1),
                   "trials": trials, "pass_rate": rate, "ci": H.rate_ci(arm, "published", problems)}
            if reference and arm == reference[1]:
                source = hand["published"][0] if cat == "overall" else next(
                    r for r in H.category_pairs(*reference, "published") if r["category"] == cat)
                row |= {"delta": source["delta_pp"], "p": source["p_wilcoxon"], "p_holm": source["p_holm"]}
            rows.append(row)
    _check_table(ledger, f"{slug}-category_rates", rows)
    _check_table(ledger, f"{slug}-ablation", [
        {"arm": names[arm], **{f"cat{i}": H.rate(arm, "published", [p for p in H.outcomes(arm, "published")
                                                                   if H.category(p) == cat])[2]
                               for i, cat in enumerate(categories)}, "overall": H.rate(arm, "published")[2]}
        for arm in arms])
    _check_table(ledger, f"{slug}-category_paired", [
        {"a": names[a], "b": names[b], "category": r["category"], "n": r["n"], "a_rate": r["a_rate"],
         "b_rate": r["b_rate"], "delta": r["delta_pp"], "p": r["p_wilcoxon"], "p_holm": r["p_holm"]}
        for a, b in pairs for r in H.category_pairs(a, b, "published")])
    if H.retry_sweep(arms):
        _check_table(ledger, f"{slug}-retry_budget", H.retry_sweep(arms))
    else:  # no condition ran at two budgets: no sweep table (one-shot is never pooled with retry)
        assert f"{slug}-retry_budget" not in ledger.data["tables"]
    _check_table(ledger, f"{slug}-cost", [
        {"arm": names[arm], "trials": len(H.records(arm)),
         **{f"{k}_{stat}": H.cost(arm)[k][j] for k in ("tokens", "calls") for j, stat in enumerate(("mean", "median"))},
         **{f"wall_{stat}": H.cost(arm)["wall"][j] for j, stat in enumerate(("mean", "median"))}}
        for arm in arms])
    if any(H.errors(arm) for arm in arms if H.rate(arm, "published")[1] < len(H.records(arm))):
        table = ledger.data["tables"][f"{slug}-errors"]
        by_title = {c["title"].removesuffix(" (%)"): c["key"] for c in table["columns"]}
        rows = []
        for arm in arms:
            shares = H.errors(arm)
            failed = sum(1 for r in H.records(arm) if not r["passed"])
            rows.append({"arm": names[arm], "failed": failed,
                         **{by_title[c]: shares.get(c, 0.0) for c in by_title if c not in ("Arm", "Failed trials")}})
        _check_table(ledger, f"{slug}-errors", rows)
    if f"{slug}-sampling" in ledger.data["tables"]:
        _check_table(ledger, f"{slug}-sampling", [{"arm": names[arm], **H.sampling(arm)} for arm in arms])
    cost_hand.check_cost_tables(lambda key, rows: _check_table(ledger, key, rows), slug, arms, names, pairs,
                                hand["published"])


def test_every_number_in_reproduce_json_matches_a_hand_computation(reproduced: Reproduced) -> None:
    data = reproduced.data
    ledger = Ledger(data)
    ledger.check(("schema",), 2)
    ledger.check(("local", "runs_imported"), 6)
    ledger.check(("local", "runs_already_stored"), 0)
    assert data["local"]["import_notes"] == []
    ledger.check(("input", "dataset", "problems"), 10)
    assert data["input"]["dataset"]["benchmark"].startswith("published:benchmark@")
    ledger.check(("sandbox", "default_timeout_s"), 5.0)
    ledger.check(("sandbox", "default_memory_mb"), 512)
    ledger.check(("method", "alpha"), 0.05)
    ledger.check(("method", "bootstrap", "resamples"), H.B)
    ledger.check(("method", "bootstrap", "seed"), H.SEED)
    with Store.open(str(reproduced.db)) as store:
        for i, arm in enumerate(S.ARMS):
            _check_run(ledger, i, arm, store)
    hands = {name: _check_family(ledger, f, name, arms) for f, (name, arms) in enumerate(FAMILIES.items())}
    _check_table(ledger, "runs", _run_rows(data))
    _check_table(ledger, "flips", _flip_rows())
    for (name, arms), section in zip(FAMILIES.items(), data["families"], strict=True):
        _family_tables(ledger, section["slug"], arms, hands[name])
    assert set(data["tables"]) >= {"internal30-10-problems-sampling", "internal30-10-problems-errors"}
    # the numbers nobody can compute by hand: software versions and how long it took
    allowed = {("versions",), ("timing",)}
    unchecked = [p for p in ledger.leaves() if p not in ledger.checked and p[:1] not in allowed]
    assert unchecked == [], unchecked[:20]
    assert data["versions"]["sandbox_policy"] == data["sandbox"]["policy_version"]
    assert set(data["protocols"]) == {"standalone", "with-prompt"}
    assert data["local"]["sandbox_layers"]["probe_job"] == "active" and "layers" not in data["sandbox"]


SENTENCE = re.compile(
    r"^(?P<b>\S+) vs (?P<a>\S+) \(delta = (?P=b) minus (?P=a)\): as published, (?P<d0>[+-]\d+\.\d) pp, "
    r"Holm p = (?P<p0>\S+): (?P<c0>[^.]+)\. Rescored under standalone: (?P<d1>[+-]\d+\.\d) pp, Holm p = (?P<p1>\S+): "
    r"(?P<c1>[^;]+); the conclusion (?P<s1>survives|does not survive)\. Rescored under with-prompt: "
    r"(?P<d2>[+-]\d+\.\d) pp, Holm p = (?P<p2>\S+): (?P<c2>[^;]+); the conclusion (?P<s2>survives|does not survive)\.$"
)


def _claim(row: dict, a: str, b: str) -> str:
    direction, significant = H.conclusion(row)
    who = "no difference" if direction == 0 else f"{b if direction > 0 else a} {'better' if significant else 'ahead'}"
    return f"{who}, {'significant' if significant else 'not significant'}"


def _p(p: float) -> str:
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def test_the_report_says_what_the_numbers_say(reproduced: Reproduced) -> None:
    names = _names(reproduced.data)
    md = (reproduced.out / "report.md").read_text()
    html = (reproduced.out / "report.html").read_text()
    seen = 0
    for section, arms in zip(reproduced.data["families"], FAMILIES.values(), strict=True):
        pairs = _pairs(arms)
        hand = {vset: H.family(pairs, vset) for vset in H.SETS}
        for c, ((a, b), comparison) in enumerate(zip(pairs, section["comparisons"], strict=True)):
            match = SENTENCE.match(comparison["sentence"])
            assert match, comparison["sentence"]
            assert (match["a"], match["b"]) == (names[a], names[b])
            for i, vset in enumerate(H.SETS):
                row = hand[vset][c]
                assert match[f"d{i}"] == f"{row['delta_pp']:+.1f}" and match[f"p{i}"] == _p(row["p_holm"])
                assert match[f"c{i}"] == _claim(row, names[a], names[b])
                if i:
                    same = H.conclusion(row) == H.conclusion(hand["published"][c])
                    assert match[f"s{i}"] == ("survives" if same else "does not survive")
            assert f"- {comparison['sentence']}" in md
            assert comparison["sentence"].replace("<", "&lt;") in html
            seen += 1
    assert seen == 7
    # the one conclusion that breaks: the HumanEval programs that need the prompt's imports
    broken = [c for f in reproduced.data["families"] for c in f["comparisons"] if not all(c["survives"].values())]
    assert [(c["a"], c["b"], c["survives"]) for c in broken] == [
        (names["h1_so"], names["h2_mf"], {"standalone": False, "with-prompt": True})]
    # warnings (unknown values kept verbatim, the APPS-sourced id) at the top, before the runs
    warnings = md.index("## Warnings")
    assert warnings < md.index("## Runs") < md.index("## internal30, 10 problems")
    top = md[warnings:md.index("## Runs")]
    assert "test_source 'none'" in top and "kept as written" in top and "'apps-introductory'" in top
    assert "e2_sr: 1 trial(s) have no program to rerun" in top
    assert "**e1_so** (internal30, 10 trials): published 20.0%; standalone 30.0% (1 flipped: 1 never graded then)" \
        in md
    # self-contained HTML: every figure embedded, nothing fetched from elsewhere
    figures = sorted(p.name for p in (reproduced.out / "figures").glob("*.svg"))
    assert len(figures) >= 10 and "internal30-10-problems-protocols.svg" in figures
    assert html.count('src="data:image/svg+xml;base64,') == len(figures)
    assert not re.search(r'(src|href)="(https?:)?//', html)
    assert sorted(reproduced.data["outputs"]["figures"]) == [f"figures/{f}" for f in figures]


def test_latex_tables_are_structurally_sound_and_carry_the_numbers(reproduced: Reproduced) -> None:
    tables = reproduced.out / "tables"
    keys = list(reproduced.data["tables"])
    assert sorted(p.stem for p in tables.glob("*.csv")) == sorted(keys)
    master = (tables / "tables.tex").read_text()
    assert r"\usepackage{booktabs}" in master and master.count(r"\input{") == len(keys)
    for key in keys:
        text = (tables / f"{key}.tex").read_text()
        rows = check_latex_table(text)
        assert len(rows) == 1 + len(reproduced.data["tables"][key]["rows"]), key
        assert rf"\input{{{key}.tex}}" in master
    # the published paired table of the internal-30 family, cell by cell against the hand numbers
    rows = check_latex_table((tables / "internal30-10-problems-paired-published.tex").read_text())
    header, body = rows[0], rows[1:]
    assert header[:3] == ["A", "B", "n"] and header[-2:] == ["p (Wilcoxon, exact)", "p (Holm)"]
    names = _names(reproduced.data)
    hand = H.family(_pairs(INTERNAL), "published")
    for (a, _), row, cells in zip(_pairs(INTERNAL), hand, body, strict=True):
        assert cells[0] == names[a].replace("_", r"\_").replace("#", r"\#")
        assert cells[2:6] == [str(row["n"]), str(row["problems_differ"]), str(row["majority_discordant"]),
                              f"{row['delta_pp']:+.1f}"]
        assert cells[6] == f"[{row['ci_lo']:+.1f}, {row['ci_hi']:+.1f}]"
        assert cells[7:] == [_p(row["p_wilcoxon"]), _p(row["p_holm"])]


def test_the_same_study_reproduces_alike_on_sqlite_and_postgresql(reproduced: Reproduced, store: Store,
                                                                  tmp_path: Path) -> None:
    from execugraph.reproduce import reproduce_path

    study, missing = reproduce_path(store, reproduced.folder, tmp_path / "out", dataset=reproduced.dataset,
                                    workers=2, figures=False)
    assert missing == "figures were not asked for"
    data = json.loads((tmp_path / "out" / "reproduce.json").read_text())
    assert data["families"] == reproduced.data["families"]
    assert data["tables"] == reproduced.data["tables"]
    assert [{k: r[k] for k in ("name", "published", "trials")} for r in data["runs"]] == [
        {k: r[k] for k in ("name", "published", "trials")} for r in reproduced.data["runs"]]


def _stored_runs(db: Path) -> int:
    with Store.open(str(db)) as store:
        return len(store.list_runs(limit=1000))


def test_a_families_file_fixes_the_comparisons_and_earlier_rescores_are_reused(reproduced: Reproduced) -> None:
    families = reproduced.root / "families.json"
    families.write_text(json.dumps({"families": [
        {"name": "against one-shot", "runs": ["e1_so", "e2_sr", "e3_mf", "e4_bo5"], "baseline": "e1_so"},
        {"name": "sampling vs pipelines", "pairs": [["e4_bo5", "e2_sr"], ["e4_bo5", "e3_mf"]]},
    ]}))
    before = _stored_runs(reproduced.db)
    out = reproduced.root / "out-families"
    done = _cli(reproduced.db, str(reproduced.folder), "--dataset", str(reproduced.dataset), "--families",
                str(families), "--out", str(out), "--no-figures")
    assert done.returncode == 0, done.stderr
    assert _stored_runs(reproduced.db) == before  # nothing imported twice, no rescore run again
    data = json.loads((out / "reproduce.json").read_text())
    assert data["local"]["runs_already_stored"] == 6
    assert all(r["reused_earlier_rescore"][p] for r in data["local"]["runs"] for p in H.PROTOCOLS)
    assert data["warnings"] == reproduced.data["warnings"]  # the study's own, not "already imported"
    assert data["local"]["import_notes"] == [f"{arm}: already imported as run {i + 1}; not duplicated"
                                             for i, arm in enumerate(S.ARMS)]
    assert "already imported" not in (out / "report.md").read_text()
    names = _names(data)
    baseline, sampling = data["families"]
    assert baseline["mode"] == "each run against e1_so" and sampling["mode"] == "chosen pairs"
    pairs = [("e1_so", "e2_sr"), ("e1_so", "e3_mf"), ("e1_so", "e4_bo5")]
    for vset in H.SETS:
        hand = H.family(pairs, vset)
        assert [round(c[vset]["p_holm"], 9) for c in baseline["comparisons"]] == [round(r["p_holm"], 9) for r in hand]
    # with three comparisons, multi-full's lead over one-shot is significant as published (3 x 1/64 < 0.05)...
    mf = baseline["comparisons"][1]
    assert (mf["a"], mf["b"]) == (names["e1_so"], names["e3_mf"])
    assert mf["published"]["p_holm"] == pytest.approx(3 / 64)
    assert mf["conclusion"]["published"] == {"direction": 1, "significant": True}
    # ... but not once climb_stairs, which was never graded, is: 3 x 1/32
    assert mf["standalone"]["p_holm"] == pytest.approx(3 / 32) and mf["survives"]["standalone"] is False
    assert f"as published, +70.0 pp, Holm p = 0.0469: {names['e3_mf']} better, significant." in mf["sentence"]
    assert "Rescored under standalone: +60.0 pp, Holm p = 0.0938: " in mf["sentence"]
    assert mf["sentence"].endswith("not significant; the conclusion does not survive.")
    assert [(c["a"], c["b"]) for c in sampling["comparisons"]] == [(names["e4_bo5"], names["e2_sr"]),
                                                                   (names["e4_bo5"], names["e3_mf"])]
    assert [c["published"]["delta_pp"] for c in sampling["comparisons"]] == [pytest.approx(-18.0),
                                                                              pytest.approx(22.0)]
    assert "humaneval" not in json.dumps(data["families"])  # only what the file asks for


def _refused(db: Path, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """`reproduce` refusing its input, run by the CLI's own `main` in this process (a refusal comes before any
    work, so a subprocess would only add the CLI's imports; the fixture and the families test run the real one):
    exit status 2, and what it printed on stderr."""
    from execugraph.cli import main

    capsys.readouterr()
    assert main(["--db", str(db), "reproduce", *args, "--workers", "2"]) == 2
    return capsys.readouterr().err


def test_bad_inputs_are_refused_naming_file_line_and_field(reproduced: Reproduced, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    before = _stored_runs(reproduced.db)
    families = tmp_path / "families.json"
    families.write_text(json.dumps([{"name": "x", "runs": ["e1_so", "e9_nope"]}]))
    err = _refused(reproduced.db, capsys, str(reproduced.folder), "--families", str(families), "--out",
                   str(tmp_path / "o1"))
    assert "families.json: field 'families[0].runs[1]': 'e9_nope' is not a run folder of study" in err
    families.write_text('[{"name": "x",\n "runs": ["e1_so" "e2_sr"]}]')
    err = _refused(reproduced.db, capsys, str(reproduced.folder), "--families", str(families), "--out",
                   str(tmp_path / "o2"))
    assert "families.json:2: not valid JSON" in err
    bad_dataset = tmp_path / "bench.jsonl"
    lines = S.dataset_lines()
    lines[3]["tests"][1]["args"] = "[1, 2"
    bad_dataset.write_text("".join(json.dumps(x) + "\n" for x in lines))
    err = _refused(reproduced.db, capsys, str(reproduced.folder), "--dataset", str(bad_dataset), "--out",
                   str(tmp_path / "o3"))
    assert "bench.jsonl:4: field 'tests[1].args'" in err, err
    broken = tmp_path / "broken"
    for arm in ("e1_so", "e2_sr"):
        (broken / arm).mkdir(parents=True)
        records = S.records_of(arm)
        if arm == "e2_sr":
            records[6]["passed"] = "yes"
        (broken / arm / "trials.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    err = _refused(reproduced.db, capsys, str(broken), "--out", str(tmp_path / "o4"))
    assert "e2_sr/trials.jsonl:7: field 'passed': expected bool, got 'yes'" in err
    assert _stored_runs(reproduced.db) == before  # nothing imported from any of them
    assert not (tmp_path / "o4" / "report.md").exists()
