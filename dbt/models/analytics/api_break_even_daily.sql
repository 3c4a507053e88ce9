-- Stable analysts' view (contract in _analytics__models.yml) over marts.fct_api_break_even_daily.
select * from {{ ref('fct_api_break_even_daily') }}
