-- Stable analysts' view (contract in _analytics__models.yml) over marts.fct_provider_spread_daily.
select * from {{ ref('fct_provider_spread_daily') }}
