"""Analysis of ham runs from outputs/ alone: collect, statistics, tables, plots, HTML viewer."""
