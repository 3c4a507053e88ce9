-- Stable analysts' view (contract in _analytics__models.yml) over marts.fct_class_leaders_daily.
select * from {{ ref('fct_class_leaders_daily') }}
