"""The plot a user chooses the number of states from: the Hankel matrix's singular values
(where they fall off, more states only fit noise) beside the held-out score of every
candidate that selection tried (``selection_.table``), the chosen one marked.

matplotlib is imported here only (the ``plot`` extra: ``pip install "seqspectral[plot]"``).
"""

from __future__ import annotations

from seqspectral.selection import SelectionResult

#: hyper-parameters that refine the swept one, not plotted on the x axis
_SECONDARY = ("floor", "model_weight")


class MissingPlotDependency(ImportError):
    """matplotlib is not installed."""

    user_facing = True


def swept_name(selection: SelectionResult) -> str | None:
    """The main hyper-parameter the selection swept (n_states, regularization, k, ...)."""
    for name in selection.chosen:
        if name not in _SECONDARY and not name.startswith("mixture_"):
            return name
    return None


def best_scores(selection: SelectionResult, name: str) -> tuple[list, list]:
    """``(values, scores)``: each value of ``name`` tried, with its best held-out score over the
    other hyper-parameters (failed candidates left out), in increasing order of value."""
    best: dict = {}
    for row in selection.table:
        if name in row and row.get("score") is not None:
            best[row[name]] = max(best.get(row[name], -float("inf")), row["score"])
    values = sorted(best)
    return values, [best[v] for v in values]


def pyplot():
    """matplotlib's pyplot on a file-only backend, or :class:`MissingPlotDependency` saying how to install it."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise MissingPlotDependency('plots need matplotlib: pip install "seqspectral[plot]"') from None
    return plt


def selection_plot(path, selection: SelectionResult | None, singular_values=None, title: str = "") -> None:
    """Write the plot (PNG, SVG or PDF by ``path``'s suffix)."""
    plt = pyplot()
    panels = [p for p in ("sv", "score") if (p == "sv" and singular_values is not None and len(singular_values))
              or (p == "score" and selection is not None and swept_name(selection) is not None)]
    if not panels:
        raise ValueError("nothing to plot: no singular values and no selection table in this model")
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 3.8), squeeze=False)
    chosen = selection.chosen if selection is not None else {}
    for ax, panel in zip(axes[0], panels):
        if panel == "sv":
            index = range(1, len(singular_values) + 1)
            ax.semilogy(index, singular_values, ".-", color="#1f5f99")
            ax.set_xlabel("index")
            ax.set_ylabel("singular value of the Hankel matrix")
            if isinstance(chosen.get("n_states"), int):
                ax.axvline(chosen["n_states"], color="#d97706", linestyle="--",
                           label=f"chosen: {chosen['n_states']} states")
                ax.legend()
        else:
            name = swept_name(selection)
            values, scores = best_scores(selection, name)
            ax.plot(values, scores, "o-", color="#1f5f99")
            if len(values) > 1 and min(values) > 0 and max(values) / min(values) > 50:
                ax.set_xscale("log")
            ax.set_xlabel(name)
            ax.set_ylabel(f"held-out log-likelihood per sequence\n({selection.on})", fontsize=8)
            if name in chosen:
                ax.axvline(chosen[name], color="#d97706", linestyle="--", label=f"chosen: {chosen[name]:g}")
                ax.legend()
        ax.grid(alpha=0.3)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    from seqspectral.io import atomic_open

    with atomic_open(path, "wb", encoding=None) as f:
        fig.savefig(f, format=str(path).rsplit(".", 1)[-1].lower() if "." in str(path) else "png")
    plt.close(fig)
