"""What each `gpuledger` command does (pipelines/cli.py parses the command line): `build` runs the
pipeline, `read` answers from the warehouse, `sources` reads captured pages and the provider
configuration."""
