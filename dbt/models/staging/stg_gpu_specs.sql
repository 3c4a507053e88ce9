select
    source,
    snapshot_url,
    snapshot_fetched_at,
    snapshot_sha256,
    row_index,
    gpu_name_raw,
    coalesce(offer_id, '') as offer_id,
    memory_gb,
    memory_bandwidth_gb_s,
    fp16_tflops,
    fp8_tflops,
    tdp_w,
    form_factor,
    observed_at,
    cast(observed_at as date) as observed_date,
    parser_version
from {{ source('raw', 'gpu_specs') }}
