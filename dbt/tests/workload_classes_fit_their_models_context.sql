-- Every seeded class asks for sequences its model's checkpoint serves: prompt and output
-- together (LLM serving), a training sample's tokens (training), within max_context_tokens
-- (model_reference.csv: max_position_embeddings of the published config). A class beyond it
-- would be ranked for requests no serving stack accepts. Rows returned fail the build.
select
    c.workload_class,
    c.model_ref,
    coalesce(c.input_len + c.output_len, c.tokens_per_output) as tokens,
    m.max_context_tokens
from {{ ref('workload_classes') }} as c
inner join {{ ref('model_reference') }} as m on c.model_ref = m.model_ref
where
    (c.class_kind = 'llm_serving' and c.input_len + c.output_len > m.max_context_tokens)
    or (c.class_kind = 'training' and c.tokens_per_output > m.max_context_tokens)
