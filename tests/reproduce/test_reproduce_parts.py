"""The pieces of a reproduction that need no store: families files, default families, conclusions, the document."""

from __future__ import annotations

import json

import pytest
from markdown_it import MarkdownIt

from execugraph.reproduce.conclusions import claim, conclusion, sentence, survives
from execugraph.reproduce.document import (
    Bullets,
    Document,
    Figure,
    Heading,
    Paragraph,
    TableBlock,
    to_html_text,
    to_markdown_text,
)
from execugraph.reproduce.families import StudyRun, default_families, resolve_families, same_problem_set
from execugraph.reproduce.inputs import ReproduceError, load_dataset, parse_families
from execugraph.stats.tables import PCT, Column, Table


def _families(document: object) -> list:
    return parse_families(json.dumps(document).encode(), "families.json")


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ([], "families.json: field 'families': expected a non-empty list of families"),
        ([{"runs": ["a", "b"]}], "field 'families[0].name': missing"),
        ([{"name": "x", "runs": ["a"]}], "field 'families[0].runs': a family compares at least two runs"),
        ([{"name": "x", "runs": ["a", "b"], "colour": 1}], "field 'families[0].colour': unknown field"),
        ([{"name": "x", "runs": ["a", "b"], "baseline": "c"}], "field 'families[0].baseline': 'c' is not one of"),
        ([{"name": "x", "pairs": [["a", "b"]], "baseline": "a"}], "give a baseline or pairs, not both"),
        ([{"name": "x", "pairs": [["a", "a"]]}], "field 'families[0].pairs[0]': expected two different run folders"),
        ([{"name": "x", "runs": ["a", "b"]}, {"name": "x", "runs": ["a", "b"]}],
         "field 'families[1].name': 'x' is also the name of families[0]"),
    ],
)
def test_a_bad_families_file_is_refused_naming_the_field(document: object, message: str) -> None:
    with pytest.raises(ReproduceError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")
                       .replace("]", r"\]")):
        _families(document)


def test_families_file_json_errors_name_the_line_and_pairs_bring_their_runs() -> None:
    with pytest.raises(ReproduceError, match=r"^families.json:3: not valid JSON"):
        parse_families(b'{"families": [\n {"name": "x",\n  "runs": ["a" "b"]}]}', "families.json")
    (family,) = _families({"families": [{"name": "s", "pairs": [["bo5", "sr"], ["bo5", "mf"]]}]})
    assert family.runs == ("bo5", "sr", "mf") and family.pairs == (("bo5", "sr"), ("bo5", "mf"))


def _run(i: int, name: str, benchmark: str, problems: range) -> StudyRun:
    return StudyRun(i, name, f"grid/{name}", benchmark, frozenset(f"p{n}" for n in problems), ("c",), len(problems))


def test_default_families_group_by_benchmark_and_problem_set() -> None:
    runs = [_run(1, "so", "internal30", range(30)), _run(2, "sr", "internal30", range(28)),
            _run(3, "he", "humaneval", range(164)), _run(4, "sub", "internal30", range(100, 110)),
            _run(5, "mf", "internal30", range(30))]
    families, alone = default_families(runs)
    assert [(f.name, [r.name for r in f.runs]) for f in families] == [("internal30, 30 problems", ["so", "sr", "mf"])]
    assert families[0].notes == ["sr lacks 2 of the family's problems (p28, p29); its pairs compare the common problems"]
    assert [r.name for r in alone] == ["he", "sub"]
    assert same_problem_set(frozenset("ab"), frozenset("bc")) and not same_problem_set(frozenset("abc"), frozenset("a"))
    assert families[0].slug == "internal30-30-problems" and families[0].mode == "all pairs"


def test_a_families_file_names_runs_by_folder() -> None:
    runs = [_run(1, "so", "internal30", range(5)), _run(2, "a/mf", "internal30", range(5)),
            _run(3, "b/mf", "internal30", range(5))]
    (family,) = resolve_families(_families([{"name": "x", "runs": ["so", "a/mf"], "baseline": "so"}]), runs, "f.json")
    assert [r.id for r in family.runs] == [1, 2] and family.baseline.id == 1 and family.mode == "each run against so"
    assert family.stats_family().baseline == "so"  # arms are keyed by study name, never by database id
    with pytest.raises(ReproduceError, match=r"f.json: field 'families\[0\].runs\[1\]': 'mf' is not a run folder"):
        resolve_families(_families([{"name": "x", "runs": ["so", "mf"]}]), runs, "f.json")  # two folders named mf


def test_conclusions_compare_direction_and_significance() -> None:
    published = {"delta_pp": -12.0, "p_holm": 0.01}
    assert conclusion(published).model_dump() == {"direction": -1, "significant": True}
    assert claim(published, "A", "B") == "A better, significant"
    assert survives(published, {"delta_pp": -3.0, "p_holm": 0.049}) and not survives(published, {"delta_pp": -3.0,
                                                                                                   "p_holm": 0.05})
    assert claim({"delta_pp": 0.0, "p_holm": 1.0}, "A", "B") == "no difference, not significant"
    text = sentence("A", "B", {"published": published, "standalone": {"delta_pp": 4.0, "p_holm": 0.00001}})
    assert text == ("B vs A (delta = B minus A): as published, -12.0 pp, Holm p = 0.0100: A better, significant. "
                    "Rescored under standalone: +4.0 pp, Holm p = <0.0001: B better, significant; the conclusion "
                    "does not survive.")


def test_the_document_renders_the_same_blocks_as_markdown_and_self_contained_html() -> None:
    doc = Document("Reproduction of <x>")
    table = Table("t", "Rates & more", [Column("arm", "Arm"), Column("rate", "Pass (%)", PCT)],
                  [{"arm": "a_1 <b>", "rate": 0.5}], ["a note"])
    doc.add(Heading("Warnings"), Bullets(["kept 'none' as written"], kind="warning"), Paragraph("**bold** & plain"),
            TableBlock(table), Figure("f.svg", "a figure", "<?xml version='1.0'?><svg></svg>"),
            Figure("g.svg", "not drawn", None))
    md = to_markdown_text(doc)
    assert md.startswith("# Reproduction of \\<x>\n") and "- kept 'none' as written" in md
    assert "| a_1 \\<b> | 50.0 |" in md and "![a figure](figures/f.svg)" in md and "*not drawn* (not rendered" in md
    rendered = MarkdownIt("commonmark").enable("table").render(md)  # the text as written, no element from it
    assert "<h1>Reproduction of &lt;x&gt;</h1>" in rendered and ">a_1 &lt;b&gt;</td>" in rendered
    assert "<strong>bold</strong> &amp; plain" in rendered
    html = to_html_text(doc)
    assert "<strong>bold</strong> &amp; plain" in html and '<ul class="warning">' in html
    assert "<td>a_1 &lt;b&gt;</td>" in html and '<td class="num">50.0</td>' in html
    assert 'src="data:image/svg+xml;base64,' in html and "http" not in html


def test_a_benchmark_file_that_is_not_the_published_layout_is_refused_by_line() -> None:
    with pytest.raises(ReproduceError, match=r"^b.jsonl:2: not a benchmark file of the published layout"):
        load_dataset(b'\n{"task_id": "x", "prompt": "..."}\n', "b.jsonl")
    with pytest.raises(ReproduceError, match=r"^b.jsonl: holds no problems"):
        load_dataset(b"\n\n", "b.jsonl")


def test_runs_are_named_by_the_study_and_told_apart_by_where_they_sit() -> None:
    from execugraph.reproduce.naming import portable, shown_names, unique_names

    assert unique_names(["so", "mf"], ["grid/so", "grid/mf"]) == ["so", "mf"]
    assert unique_names(["mf", "mf", ""], ["bundle run 1", "bundle run 2", "bundle run 3"]) == [
        "mf (bundle run 1)", "mf (bundle run 2)", "bundle run 3"]
    assert unique_names(["x", "x"], ["", ""]) == ["x [1]", "x [2]"]
    shown = shown_names({"so": {"title": "so"}, "so 2": {"title": "so 2"}})
    assert shown == {"so #so": "so", "so 2 #so 2": "so 2"}
    report = {"a_name": "so #so", "notes": ["so 2 #so 2: only budget 0", ("so #so",)], "n": 3}
    assert portable(report, shown) == {"a_name": "so", "notes": ["so 2: only budget 0", ("so",)], "n": 3}
