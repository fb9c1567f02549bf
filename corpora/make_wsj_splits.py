"""Usage: python corpora/make_wsj_splits.py OUTDIR (writes wsj.{train,dev,test}.conllu and
wsj-roots.{train,dev,test}.conllx; nothing is kept in the repository).

The NLTK WSJ dependency sample split 80/10/10, as UTF-8 CoNLL-U and as Latin-1 CoNLL-X with
several roots. Rule: the 199 files sorted by name, sentences in file order, concatenated; the
first 80% of the sentences (rounded down) train, the next 10% dev, the rest test. Columns:
FORM, UPOS = XPOS = the PTB tag, HEAD; LEMMA, DEPREL '_'. The CoNLL-X copy: every sentence whose
last word is tagged '.' has that word's head set to 0 (a second root attachment, as CoNLL-X
treebanks allow), and the first form of every sentence gets 'ñ' appended (a non-ASCII Latin-1
byte); encoded Latin-1."""
import sys
import zipfile

z = zipfile.ZipFile(sys.argv[2] if len(sys.argv) > 2 else "../shared/corpora/nltk_data/corpora/dependency_treebank.zip")
sentences = []
for name in sorted(n for n in z.namelist() if n.endswith(".dp")):
    for block in z.read(name).decode("ascii").strip().split("\n\n"):
        rows = [line.split("\t") for line in block.strip().split("\n") if line.strip()]
        if rows:
            sentences.append(rows)
n = len(sentences)
a, b = n * 8 // 10, n * 9 // 10
parts = {"train": sentences[:a], "dev": sentences[a:b], "test": sentences[b:]}
out = sys.argv[1]
for part, sents in parts.items():
    with open(f"{out}/wsj.{part}.conllu", "w", encoding="utf-8") as f:
        for i, rows in enumerate(sents, 1):
            f.write(f"# sent_id = {part}-{i}\n")
            for j, (form, tag, head) in enumerate(rows, 1):
                f.write(f"{j}\t{form}\t_\t{tag}\t{tag}\t_\t{head}\t_\t_\t_\n")
            f.write("\n")
    with open(f"{out}/wsj-roots.{part}.conllx", "w", encoding="latin-1") as f:
        for rows in sents:
            for j, (form, tag, head) in enumerate(rows, 1):
                if j == len(rows) and tag == "." and j > 1:
                    head = "0"
                if j == 1:
                    form += "ñ"
                f.write(f"{j}\t{form}\t_\t{tag}\t{tag}\t_\t{head}\t_\t_\t_\n")
            f.write("\n")
print({k: len(v) for k, v in parts.items()})
