"""MRAMG-Bench style documents and questions: <PIC> order, captions, steps, mismatches."""
import json
import shutil
from ham.ingest import ingest_corpus
from ham.datasets.mramg import load_mqa
from tests.ingest.helpers import FIXTURES, heading_path


def images_of(doc):
    return [n for n in doc.leaves() if n.kind == "image"]


def recipes():
    docs, report = ingest_corpus(FIXTURES / "mramg")
    assert report.problems == []
    return {d.id: d for d in docs}, report


def write_corpus(tmp_path, lines):
    shutil.copytree(FIXTURES / "mramg" / "IMAGE", tmp_path / "IMAGE")
    (tmp_path / "doc_recipe.jsonl").write_text("\n".join(lines) + "\n")


def corpus_copy(tmp_path, lines):
    write_corpus(tmp_path, lines)
    return ingest_corpus(tmp_path)


def test_documents_ids_and_claim():
    docs, report = recipes()
    assert sorted(docs) == ["recipe/0", "recipe/1"]
    assert docs["recipe/0"].source == "doc_recipe.jsonl" and docs["recipe/0"].format == "mramg"
    # the questions and the collection belong to the format (read by path, not parsed as
    # documents), so they are neither documents nor "unsupported" files
    assert report.documents == 2 and report.ignored_files == []


def test_pic_markers_take_images_in_order_with_collection_captions():
    docs, _ = recipes()
    bruschetta = docs["recipe/1"]
    leaves = [(n.kind, n.image or n.text) for n in bruschetta.leaves()]
    assert leaves == [("text", "Tomato Bruschetta"), ("text", "Toast slices of bread until golden."),
                      ("image", "103"), ("text", "Top with chopped tomatoes, basil and olive oil."),
                      ("image", "104"), ("text", "Serve at once so the bread stays crisp.")]
    first, second = images_of(bruschetta)
    assert first.caption == "Golden toasted bread" and second.caption == "Finished bruschetta"
    # image_path found under the corpus root, by file name and under IMAGE/images/RECIPE/
    assert first.image_path == "IMAGE/images/RECIPE/103.jpg"
    assert second.image_path == "IMAGE/images/RECIPE/104.jpg"


def test_headings_and_steps():
    docs, _ = recipes()
    pancakes = docs["recipe/0"]
    assert pancakes.title == "Buttermilk Pancakes"
    batter = images_of(pancakes)[0]
    path = pancakes.paths()[batter.id]
    assert pancakes.root.rule.startswith("title: the first heading")  # the first heading is the title, not a section
    assert [n.title for n in path[1:-1]] == ["Method", "Step 1"]
    assert path[-2].kind == "step"
    assert batter.image == "101" and batter.image_path == "IMAGE/images/RECIPE/101.jpg"
    ingredients = next(n for n in pancakes.leaves() if n.text.startswith("2 cups flour"))
    assert heading_path(pancakes, ingredients) == ["Ingredients"]


def test_more_markers_than_images_is_reported(tmp_path):
    lines = [json.dumps([7, "A <PIC> B <PIC> C <PIC> D", [101, 102]]),
             json.dumps([8, "Fine <PIC>", [103]])]
    docs, report = corpus_copy(tmp_path, lines)
    doc = next(d for d in docs if d.id == "recipe/7")
    assert [n.image or n.text for n in doc.leaves()] == ["A", "101", "B", "102", "C", "D"]
    assert "doc_recipe.jsonl: line 1 (doc 7): 3 <PIC> marker(s) but 2 image(s) in images_list; the last " \
           "1 <PIC> marker(s) have no image and were left out (image skipped)" in \
           [str(p) for p in report.problems]
    assert any(d.id == "recipe/8" for d in docs)


def test_more_images_than_markers_appends_and_reports(tmp_path):
    docs, report = corpus_copy(tmp_path, [json.dumps([9, "Only one <PIC> here", [101, 102, 103]])])
    assert [n.image for n in images_of(docs[0])] == ["101", "102", "103"]
    message = next(str(p) for p in report.problems)
    assert message.startswith("doc_recipe.jsonl: line 1 (doc 9): 1 <PIC> marker(s) but 3 image(s)")
    assert "102, 103 have no <PIC> and were appended at the end of the document" in message


def test_malformed_lines_unknown_and_missing_images_are_reported(tmp_path):
    lines = ['{"id": 1}', "[1, 2]", "not json",
             json.dumps([10, "Text <PIC> <PIC>", [999, 105]]),
             json.dumps([11, "Still parsed.", []])]
    coll = json.loads((FIXTURES / "mramg/IMAGE/images_info/recipe_imgs_collection.json").read_text())
    coll["105"] = {"image_url": "", "image_path": "IMAGE/images/RECIPE/105.jpg", "image_caption": "gone"}
    write_corpus(tmp_path, lines)
    (tmp_path / "IMAGE/images_info/recipe_imgs_collection.json").write_text(json.dumps(coll))
    docs, report = ingest_corpus(tmp_path)
    assert sorted(d.id for d in docs) == ["recipe/10", "recipe/11"]
    messages = [str(p) for p in report.problems]
    assert "doc_recipe.jsonl: line 1: not [id, content, images_list] (document skipped)" in messages
    assert "doc_recipe.jsonl: line 2: not [id, content, images_list] (document skipped)" in messages
    assert any(m.startswith("doc_recipe.jsonl: line 3: not valid JSON") for m in messages)
    assert "doc_recipe.jsonl: line 4 (doc 10): image 999 is not in the image collection " \
           "(image skipped)" in messages
    assert any(m.startswith("doc_recipe.jsonl: line 4 (doc 10): image 105 ('IMAGE/images/RECIPE/105.jpg') "
                            "file not found") for m in messages)
    doc10 = next(d for d in docs if d.id == "recipe/10")
    assert [(n.image, n.image_path) for n in images_of(doc10)] == [("999", None), ("105", None)]


def test_missing_collection_is_reported(tmp_path):
    (tmp_path / "doc_recipe.jsonl").write_text(json.dumps([1, "Pic <PIC>", [5]]) + "\n")
    docs, report = ingest_corpus(tmp_path)
    assert images_of(docs[0])[0].image == "5"
    assert any(p.file == "doc_recipe.jsonl" and "recipe_imgs_collection.json not found" in p.problem
               for p in report.problems)


def test_load_mqa_reference_answers_use_the_doc_image_ids():
    questions, problems = load_mqa(FIXTURES / "mramg" / "recipe_mqa.jsonl")
    assert problems == []
    q = questions[0]
    assert q.id == "0" and q.question == "How do I know when to flip a pancake?"
    assert q.reference_answer == ("Beat the batter until smooth ![](101) then cook it on a hot griddle and "
                                  "flip when bubbles appear on the surface. ![](102)")
    assert q.gold_images == ["101", "102"]
    docs, _ = recipes()
    assert [n.image for n in images_of(docs["recipe/0"])] == q.gold_images
    # provenance names the gold documents as ham names them (it had been dropped)
    assert q.meta["gold_docs"] == ["recipe/0"] and q.meta["gold_docs"][0] in docs


def test_load_mqa_reports_bad_lines_and_mismatches(tmp_path):
    path = tmp_path / "recipe_mqa.jsonl"
    path.write_text("\n".join([
        json.dumps({"id": 1, "question": "Q?", "ground_truth": "a <PIC> b <PIC>", "images_list": [4],
                    "provenance": [1]}),
        "{broken",
        json.dumps({"id": 2, "ground_truth": "no question"}),
    ]) + "\n")
    questions, problems = load_mqa(path)
    assert [q.id for q in questions] == ["1"]
    assert questions[0].reference_answer == "a ![](4) b "
    assert any(":1: 2 <PIC> marker(s) in ground_truth but 1 image(s)" in p for p in problems)
    assert any(":2:" in p and "question skipped" in p for p in problems)
    assert any(":3: not an object with id and question" in p for p in problems)


def test_duplicate_document_ids_are_reported(tmp_path):
    docs, report = corpus_copy(tmp_path, [json.dumps([3, "first", []]), json.dumps([3, "second", []])])
    assert [n.text for d in docs for n in d.leaves()] == ["first"]
    assert "doc_recipe.jsonl: line 2: duplicate document id 'recipe/3' (document skipped)" in \
        [str(p) for p in report.problems]
