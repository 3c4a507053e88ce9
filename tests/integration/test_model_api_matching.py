"""Which model-API offers count for a model (model_reference.api_model_pattern), on the demo's real
genai-prices catalog: the model's own release at any provider, in any quantisation or serving
speed, and not a distillation of it, another organisation's fine-tune, another version or a
later dated checkpoint. The Kimi K2.5 classes compare their API; chat-13-34b (Qwen2.5-32B) has
none, since the catalog's only offers under that name are EVA's fine-tune."""

from __future__ import annotations

from datetime import date

import pytest

pytestmark = pytest.mark.integration


def offers_of(con, day, model_ref: str) -> set[tuple[str, str]]:
    return set(con.execute(
        """select provider, model_id from intermediate.int_model_api_prices_daily
           where day = ? and model_ref = ?""",
        [day, model_ref],
    ).fetchall())  # fmt: skip


def in_catalog(con, provider: str, model_id: str) -> bool:
    return bool(con.execute(
        "select count(*) from marts.fct_model_api_prices where provider = ? and model_id = ?",
        [provider, model_id],
    ).fetchone()[0])  # fmt: skip


def test_an_offer_counts_for_the_model_it_serves_and_for_no_other(con, shown_day):
    # Kimi K2.5 under each provider's spelling (fireworks: k2p5), not K2, K2.6 or K2.7 Code
    assert offers_of(con, shown_day, "kimi-k2.5") == {
        ("avian", "moonshotai/kimi-k2.5"), ("cloudflare", "@cf/moonshotai/kimi-k2.5"),
        ("fireworks", "kimi-k2p5"), ("huggingface_novita", "moonshotai/Kimi-K2.5"),
        ("huggingface_together", "moonshotai/Kimi-K2.5"), ("moonshotai", "kimi-k2.5"),
        ("novita", "moonshotai/kimi-k2.5"), ("openrouter", "moonshotai/kimi-k2.5"),
    }  # fmt: skip
    # K2.6, priced in the catalog, is no reference model's: it counts for none of them
    assert in_catalog(con, "moonshotai", "kimi-k2.6")
    (k26,) = con.execute(
        """select count(*) from intermediate.int_model_api_prices_daily
           where provider = 'moonshotai' and model_id = 'kimi-k2.6'"""
    ).fetchone()
    assert k26 == 0
    assert ("moonshotai", "kimi-k2") in offers_of(con, shown_day, "kimi-k2")
    # DeepSeek-R1 itself (Bedrock calls it deepseek.r1-v1:0), not its distillations into Llama
    # and Qwen models nor the later R1-0528 checkpoint, all of which the catalog prices
    r1 = offers_of(con, shown_day, "deepseek-r1")
    assert ("aws", "deepseek.r1-v1:0") in r1 and ("openrouter", "deepseek/deepseek-r1") in r1
    assert len(r1) == 7 and not [m for _, m in r1 if "distill" in m or "0528" in m]
    for provider, model_id in [("groq", "deepseek-r1-distill-llama-70b"),
                               ("openrouter", "deepseek/deepseek-r1-0528")]:  # fmt: skip
        assert in_catalog(con, provider, model_id)
    # other organisations' fine-tunes are their own models: Hermes 3, Aion, Dobby, EVA
    llama_8b = offers_of(con, shown_day, "llama-3.1-8b")
    assert ("openrouter", "meta-llama/llama-3.1-8b-instruct") in llama_8b
    assert ("aws", "meta.llama3-1-8b-instruct-v1:0") in llama_8b
    for fine_tune in ("aion-labs/aion-rp-llama-3.1-8b", "dobby-mini-unhinged-plus-llama-3.1-8b"):
        assert in_catalog(con, "openrouter", fine_tune)
        assert ("openrouter", fine_tune) not in llama_8b
    assert in_catalog(con, "openrouter", "nousresearch/hermes-3-llama-3.1-70b")
    assert ("openrouter", "nousresearch/hermes-3-llama-3.1-70b") not in offers_of(
        con, shown_day, "llama-3.1-70b"
    )
    assert in_catalog(con, "openrouter", "eva-unit-01/eva-qwen-2.5-32b")
    assert offers_of(con, shown_day, "qwen2.5-32b") == set()
    # GLM-5 is not GLM-5.1 (nor the reverse), and a model id counts for one model at most
    assert ("zai", "GLM-5.1") not in offers_of(con, shown_day, "glm-5")
    assert ("zai", "GLM-5.1") in offers_of(con, shown_day, "glm-5.1")
    (shared,) = con.execute(
        """select count(*) from (
               select source, provider, model_id from intermediate.int_model_api_prices_daily
               group by all having count(distinct model_ref) > 1)"""
    ).fetchone()
    assert shared == 0


def test_the_kimi_classes_weigh_renting_against_the_kimi_api(con, shown_day):
    """reasoning-kimi-k2.5's cheapest model API, by hand from the catalog's price and the seed's
    lengths: (input x 0.4 + output x 1.9) / 1e6 USD per request, over the class's quality pass
    rate; chat-13-34b shows no API (no Qwen2.5-32B is priced)."""
    price = con.execute(
        """select input_usd_per_mtok, output_usd_per_mtok from marts.fct_model_api_prices
           where provider = 'openrouter' and model_id = 'moonshotai/kimi-k2.5'"""
    ).fetchall()
    assert price == [(0.4, 1.9)]
    input_len, output_len, quality = con.execute(
        """select input_len, output_len, quality_pass_rate from reference.workload_classes
           where workload_class = 'reasoning-kimi-k2.5'"""
    ).fetchone()
    best = con.execute(
        """select provider, offer_id, cost_per_accepted_output, is_eligible
           from analytics.workload_costs_daily
           where day = ? and workload_class = 'reasoning-kimi-k2.5' and option_kind = 'model_api'
           order by option_rank nulls last limit 1""",
        [shown_day],
    ).fetchone()
    assert best[:2] == ("openrouter", "moonshotai/kimi-k2.5") and best[3]
    cost = (input_len * 0.4 + output_len * 1.9) / 1e6 / quality
    assert best[2] == pytest.approx(cost, rel=1e-12)
    # cheaper than the class's best rented GPU on the day
    gpu = con.execute(
        """select min(cost_per_accepted_output) from analytics.workload_costs_daily
           where day = ? and workload_class = 'reasoning-kimi-k2.5' and option_kind = 'gpu_offer'
             and is_eligible""",
        [shown_day],
    ).fetchone()[0]
    assert best[2] < gpu
    (qwen_32b_apis,) = con.execute(
        """select count(*) from analytics.workload_costs_daily
           where day = ? and workload_class = 'chat-13-34b' and option_kind = 'model_api'""",
        [shown_day],
    ).fetchone()
    assert qwen_32b_apis == 0


def test_an_undated_api_price_is_not_assumed_years_before_its_catalog(con, shown_day):
    """The demo's catalog (genai-prices, taken 2026-12-01) gives its prices no start date: they
    stand for a day at most api_price_assumed_days (180) before it. The shown day (102 days
    before) keeps its API prices; 2021-04-28, the first priced day, had Llama 3.1 70B APIs ranked
    first from that catalog (0.246 USD per 1,000 requests, a price taken 2,043 days later, for a
    model released years after) and now has none."""
    bases = con.execute(
        """select price_basis, min(day),
                  max(date_diff('day', day, cast(snapshot_fetched_at as date)))
           from intermediate.int_model_api_prices_daily group by 1"""
    ).fetchall()
    # the first demo day within 180 days of 2026-12-01 (06-04) is 06-26, 158 days before it
    assert bases == [("assumed_from_later_catalog", date(2026, 6, 26), 158)]
    assert offers_of(con, shown_day, "llama-3.1-70b")
    kinds = con.execute(
        """select option_kind, count(*) from analytics.rank_workload(
               model := 'llama-3.1-70b', input_len := 3000, output_len := 400,
               day := date '2021-04-28')
           group by 1"""
    ).fetchall()
    assert kinds == [("gpu_offer", 7)]
