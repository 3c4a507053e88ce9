"""Where gpuledger keeps its state: the DuckDB warehouse, the snapshot archive, the Dagster home."""
