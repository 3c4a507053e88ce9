"""What the source adapters stand on, apart from the adapters themselves: the typed records a
parser may return (`records`), the one HTTP client (`http`), the content-addressed archive of
fetched pages (`archive`), number and money parsing (`parsing`), table extraction from HTML and
markdown (`tables`), price tables turned into prices (`price_page`) and the automatic reading of any
pricing page's layout (`page_reader`). The pipeline's ingest
engine uses the same records, client and archive.
"""
