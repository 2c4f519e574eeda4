"""Tables come back as pandas DataFrames when pandas imports, else as a list
of dicts (one per row, the same columns as keys). pandas is optional: the
reader itself needs only numpy."""

try:  # pandas is optional; without it tables are lists of dicts
    import pandas as _pd
except ImportError:
    _pd = None


def have_pandas():
    return _pd is not None


def table(rows, columns):
    """rows: a list of dicts holding every column. A DataFrame with these
    columns in this order, or the rows themselves without pandas."""
    if _pd is None:
        return rows
    return _pd.DataFrame(rows, columns=columns)
