"""The `seqspectral` command line (installed as the subpackage seqspectral.cli)."""
