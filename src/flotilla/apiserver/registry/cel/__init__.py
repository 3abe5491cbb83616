"""CEL validation rules of custom resources (`x-kubernetes-validations`), as kube-apiserver runs them.

Which CEL: we measured the three maintained implementations on PyPI on this machine (a 20-item
`self.items.all(x, x.v < 100)`, per evaluation): `common-expression-language` (Rust) 93 us, but it
holds the GIL for a whole evaluation and has no cost or iteration limit — a 27M-step rule froze
the process 10.6 s with no way to stop it; `cel-expr-python` (Google's C++) 17 us, but with a fixed,
unconfigurable budget of 9,999 comprehension steps per evaluation that refuses rules Kubernetes
accepts (one `all` over 10,000 items) and no cost accounting for string or list growth;
`cel-python` (pure Python) 2.5 ms — 100x slower than our budget allows — with no cost accounting
either. None can enforce kube's cost model, which is the defence against hostile rules. So we use
cel-python's parser (its LALR grammar, the part it has conformance-tested) and evaluate its trees
with our own compiler to closures (`evaluator`): 24 us for the rule above, ~100x faster than
cel-python's interpreter, ~0.24 us per cost unit (1,000,000, the per-call limit, in 0.25 s), with
cel-go's cost counting built in so a runaway rule stops at kube's limits (`budget`), kube's
libraries (`library`), schema-typed values (`values`), cost estimation at CRD time (`estimate`,
`schemachecks`), rule trees compiled once per served schema version (`rules`), and evaluation off
the event loop once it gets expensive (`runner`).
"""
