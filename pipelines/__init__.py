"""gpuledger's Dagster code location and command line."""
