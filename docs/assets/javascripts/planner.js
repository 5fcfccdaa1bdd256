// Scale by the Numbers: the layout planner (macros/pictures/planner.py, on macros/model/planner.py).
//
// Every layout of a model on a cluster (tensor × pipeline × data degrees, ZeRO 0 to 3, sequence
// parallelism, micro-batch, recomputation, 1F1B), each one's memory by role on its most loaded GPU and its
// step time by part, ranked. Every coefficient, catalog entry, rule, limit and message comes from the JSON
// the build wrote into the form's data-sbn-config from the Python model: only the formulas' shape is here,
// each function named after the Python one it mirrors. Numbers are floats where Python's are fractions; the
// browser tests hold the two equal on thousands of layouts. The interleaved schedule, which the page does
// not offer, is left out. A layout's context and expert degrees (cp, ep, 1 when absent) are counted as Python
// counts them, but the page's search, like Python's when not told, keeps both at 1. Only pages with a planner load this script, from their content, so Material's
// instant navigation runs it too; it sets itself up once.

(() => {
  "use strict";
  if (window.sbnPlanner) return;

  /**
   * @typedef {Record<string, any>} Json
   * @typedef {{tp: number, pp: number, dp: number, zero: number, micro_batch: number, recompute: string,
   *   sequence_parallel: boolean, chunks: number, cp?: number, ep?: number}} Layout
   */

  // ------------------------------------------------------------ the model

  /** @param {Json} c @param {Json} s `shape.parameter_count`: a model's parameters by part. */
  function parameterCount(c, s) {
    const dim = s.head_dim || Math.floor(s.hidden / s.heads);
    const query = s.heads * dim;
    const kv = s.kv_heads * dim;
    let attention = s.hidden * (2 * query + 2 * kv);
    if (s.attention_bias) attention += query + 2 * kv;
    const copied = c.norm_vectors[s.norm] * 2 * s.hidden + (s.output_bias ? s.hidden : 0);
    const mlp = (/** @type {number} */ width) => {
      const count = c.mlp_matrices[s.gated ? "gated" : "plain"];
      const split = count * s.hidden * width + (s.mlp_bias ? (count - 1) * width : 0);
      return [split, s.mlp_bias ? s.hidden : 0];
    };
    let layer;
    if (!s.experts) {
      const [split, copiedMlp] = mlp(s.ffn);
      layer = { split: attention + split, copied: copied + copiedMlp, experts: 0, active_experts: 0 };
    } else {
      const [split, copiedMlp] = mlp(s.expert_ffn);
      const experts = s.experts * (split + copiedMlp);
      const active = s.experts_per_token * (split + copiedMlp);
      layer = { split: attention + experts, copied: copied + s.hidden * s.experts, experts, active_experts: active };
    }
    const total = layer.split + layer.copied;
    const active = total - layer.experts + layer.active_experts;
    const embedding = s.vocabulary * s.hidden;
    const positions = s.positions * s.hidden;
    const output = s.tied ? 0 : s.vocabulary * s.hidden;
    const finalNorm = c.norm_vectors[s.norm] * s.hidden;
    return {
      layers: s.layers,
      layer,
      embedding,
      positions,
      output,
      final_norm: finalNorm,
      total: s.layers * total + embedding + positions + output + finalNorm,
      active: s.layers * active + embedding + positions + output + finalNorm,
      matmul: s.layers * active + embedding,
      query_width: query,
      kv_width: kv,
    };
  }

  /** `planner.stage_parameters`: what a GPU of `stage` holds, split by t and copied, ZeRO-3's largest unit, and
   * its experts (E/ep of each layer's, `experts.device_parameters`). */
  function stageParameters(count, tp, pp, stage, tied, ep = 1) {
    const first = stage === 0;
    const last = stage === pp - 1;
    const layers = count.layers / pp;
    const layerSplit = count.layer.split - count.layer.experts + count.layer.experts / ep;
    let split = layers * layerSplit;
    let copied = layers * count.layer.copied;
    const ends = [];
    if (first) {
      ends.push(count.embedding);
      copied += count.positions;
    }
    if (last) {
      copied += count.final_norm;
      ends.push(!tied ? count.output : !first ? count.embedding : 0);
    }
    split += ends.reduce((sum, end) => sum + end, 0);
    const unit = Math.max(layerSplit / tp + count.layer.copied, ...ends.map((end) => end / tp));
    const experts = (layers * count.layer.experts) / (ep * tp);
    return { parameters: split / tp + copied, largest_unit: unit, experts };
  }

  /** `parallel_activations.shape_layer_activation_bytes`: Korthikanti et al.'s count for one layer of any shape. */
  function layerActivationBytes(c, s, count, sequence, micro, width, tp, sp, recompute, scoresStored) {
    const tokens = sequence * micro;
    const spread = sp ? tp : 1;
    if (recompute === "full") return (tokens * c.checkpoint_bytes_per_token_hidden * s.hidden) / spread;
    const per = c.split_bytes_per_width;
    const copied = (c.replicated_per_hidden * s.hidden) / spread;
    const split = per.query * count.query_width + per.kv * count.kv_width + per[s.gated ? "gated_mlp" : "mlp"] * width;
    const stored = scoresStored && recompute === "none";
    const scores = stored ? s.hidden * ((c.attention_score_bytes * s.heads * sequence) / s.hidden) : 0;
    return tokens * (copied + split / tp + scores / tp);
  }

  /** `planner.stage_memory`: bytes by role on a GPU of `stage`. */
  function stageMemory(c, s, count, hw, run, lay, stage) {
    const cp = lay.cp ?? 1;
    const ep = lay.ep ?? 1;
    const held = stageParameters(count, lay.tp, lay.pp, stage, s.tied, ep);
    const recipe = run.recipeBytes;
    const sharded = c.stages[String(lay.zero)];
    // The dense parameters' states over dp × cp, the experts' over their data-parallel degree cp·dp ÷ ep; hybrid
    // sharding shards both over a node's data-parallel ranks only.
    const shards = lay.hybrid ? hybridGroups(hw, lay).shard : lay.dp * cp;
    const expertShards = lay.hybrid ? shards : (cp * lay.dp) / ep;
    const role = (/** @type {string} */ name) =>
      (recipe[name] * (held.parameters - held.experts)) / (sharded.includes(name) ? shards : 1) +
      (held.experts ? (recipe[name] * held.experts) / (sharded.includes(name) ? expertShards : 1) : 0);
    let parameters = role("parameters");
    let gradients = role("gradients");
    if (lay.zero === 3) {
      parameters += held.largest_unit * recipe.parameters;
      gradients += held.largest_unit * recipe.gradients;
    }
    const microbatches = Math.floor(Math.floor(run.global_batch / run.sequence) / (lay.dp * lay.micro_batch));
    const width = (s.experts ? s.expert_ffn : s.ffn) * (s.experts ? s.experts_per_token : 1);
    const scores = run.attention === "stored";
    const layer = (/** @type {string} */ recompute) =>
      layerActivationBytes(
        c,
        s,
        count,
        run.sequence,
        lay.micro_batch,
        width,
        lay.tp,
        lay.sequence_parallel,
        recompute,
        scores,
      );
    // `pipeline.one_f_one_b_in_flight`: what stage i of 1F1B holds at its peak, min(p − i, m).
    const inFlight = Math.min(lay.pp - stage, microbatches);
    // Context parallelism splits every tensor along the sequence: each of the cp GPUs keeps a cp-th.
    let activations = ((s.layers / lay.pp) * layer(lay.recompute) * inFlight) / cp;
    if (lay.recompute === "full") activations += layer("none") / cp;
    const tokens = (run.sequence * lay.micro_batch) / cp;
    const spread = lay.sequence_parallel ? lay.tp : 1;
    if (stage === 0) {
      activations += inFlight * tokens * (c.token_id_bytes + (c.embedding_mask_bytes * s.hidden) / spread);
    }
    if (stage === lay.pp - 1) {
      activations += tokens * ((c.logit_bytes * s.hidden) / spread + (c.logit_bytes * s.vocabulary) / lay.tp);
    }
    const memory = { parameters, gradients, optimizer: role("optimizer"), activations, reserve: c.reserve * hw.memory };
    return { ...memory, total: parameters + gradients + memory.optimizer + activations + memory.reserve };
  }

  /** `compute.training_flops` per token + `compute.attention_flops_per_token`, as `planner.flops_per_token`. */
  function flopsPerToken(c, s, count, sequence, recompute) {
    const matmul = c.flops_per_parameter[recompute === "full" ? "full" : "none"] * count.matmul;
    const passes = recompute === "none" ? 0 : 1;
    const forward = c.attention_forward_flops * s.layers * count.query_width * sequence;
    return matmul + (1 + c.backward_flops_per_parameter / c.forward_flops_per_parameter + passes) * forward;
  }

  /** `layout.rank_placement`: how Megatron-LM's rank order puts a data-parallel group and the stages on nodes. */
  function rankPlacement(tp, pp, dp, perNode) {
    const nodes = Math.max(1, Math.floor((tp * pp * dp) / perNode));
    const blocks = perNode / tp;
    let fewest = dp;
    let spans = false;
    for (let stage = 0; stage < pp; stage++) {
      const first = stage * dp;
      const last = (stage + 1) * dp;
      for (let node = Math.floor(first / blocks); node * blocks < last; node++) {
        const members = Math.min(last, (node + 1) * blocks) - Math.max(first, node * blocks);
        fewest = Math.min(fewest, members);
        spans = spans || members < dp;
      }
    }
    return { dataPerNode: fewest, dataSpansNodes: spans, boundaryCrossesNodes: nodes > 1 && pp > 1 };
  }

  const ringFactor = (/** @type {number} */ n) => (2 * (n - 1)) / n;

  /** `planner.hybrid_groups`: a node's data-parallel ranks that shard (F) and the replicas across nodes (R). */
  function hybridGroups(hw, lay) {
    const group = lay.dp * (lay.cp ?? 1);
    const shard = rankPlacement(lay.tp, lay.pp, group, hw.per_node).dataPerNode;
    return { shard, replicas: group / shard };
  }

  /** `planner._placement_of`: whether groups of `members` blocks of tp adjacent ranks span nodes, and the fewest
   * members of one on a node. */
  function groupPlacement(hw, tp, members) {
    const placed = rankPlacement(tp, (hw.per_node * hw.nodes) / (tp * members), members, hw.per_node);
    return { spans: placed.dataSpansNodes, perNode: placed.dataPerNode };
  }

  /** `context.exposed_ring_seconds`: one layer's ring, forward and backward, beyond the attention it runs beside. */
  function exposedRingSeconds(c, sequence, batch, hidden, kvWidth, context, flops, bandwidth, forwardPasses) {
    if (context === 1) return 0;
    const local = sequence / context;
    const block = 2 * local * batch * kvWidth * c.activation_bytes;
    const sent = (forwardPasses * (context - 1) + 2 * (context - 1)) * block;
    const step = (c.block_flops_per_token_pair_hidden * local * local * batch * hidden) / c.causal_factor;
    const attention = ((context - 1) * (forwardPasses + 2) * step) / flops;
    return Math.max(0, sent / bandwidth - attention);
  }

  /** `planner.step_time`: a step's seconds by part. */
  function stepTime(c, s, count, hw, run, lay) {
    const { tp: t, pp: p, dp: d } = lay;
    const cp = lay.cp ?? 1;
    const ep = lay.ep ?? 1;
    const local = run.sequence / cp;
    const layers = s.layers / p;
    const gpus = hw.per_node * hw.nodes;
    const sequences = Math.floor(run.global_batch / run.sequence);
    const m = Math.floor(sequences / (d * lay.micro_batch));
    const tokens = sequences * run.sequence;
    const attentionRecompute = lay.recompute === "selective" && run.attention === "fused" ? "none" : lay.recompute;
    const perToken = flopsPerToken(c, s, count, run.sequence, attentionRecompute);
    const sustained = hw.peak_flops * run.share;
    const compute = (perToken * tokens) / (gpus * sustained);
    let tensor = 0;
    if (t > 1) {
      // `tensor.exposed_allreduce_seconds`: the forward all-reduces whole (twice with recomputation), and what
      // each backward one takes beyond its weight-gradient GEMM at the sustained rate.
      const one = (ringFactor(t) * lay.micro_batch * local * s.hidden * c.activation_bytes) / hw.nvlink_bandwidth;
      const forward = c.allreduces_per_layer.forward * (lay.recompute === "full" ? 2 : 1);
      let perLayer = forward * one;
      for (const width of Object.values(c.column_parallel_widths)) {
        const gemm = (2 * lay.micro_batch * local * s.hidden * width * s.hidden) / t / sustained;
        perLayer += Math.max(0, one - gemm);
      }
      tensor = m * layers * perLayer;
    }
    let context = 0;
    if (cp > 1) {
      const group = groupPlacement(hw, t, cp);
      const link = group.spans ? hw.network_bandwidth * group.perNode : hw.nvlink_bandwidth;
      const passes = lay.recompute === "full" ? 2 : 1;
      const width = count.query_width / t;
      const ring = exposedRingSeconds(
        c,
        run.sequence,
        lay.micro_batch,
        width,
        count.kv_width / t,
        cp,
        sustained,
        link,
        passes,
      );
      context = m * layers * ring;
    }
    let expert = 0;
    if (ep > 1) {
      const group = groupPlacement(hw, t, ep);
      const routed = (lay.micro_batch * local) / (lay.sequence_parallel ? t : 1);
      const one = (routed * s.experts_per_token * s.hidden * c.activation_bytes * (ep - 1)) / ep;
      const perLayer =
        c.alltoalls_per_layer.forward * (lay.recompute === "full" ? 2 : 1) + c.alltoalls_per_layer.backward;
      const sent = perLayer * one;
      const seconds = group.spans ? sent / group.perNode / hw.network_bandwidth : sent / hw.nvlink_bandwidth;
      expert = m * layers * seconds;
    }
    const placed = rankPlacement(t, p, cp * d, hw.per_node);
    let data = 0;
    if (cp * d > 1) {
      const stage = stageParameters(count, t, p, 0, s.tied, ep);
      const expertDp = (cp * d) / ep;
      // A reduce-scatter's or an all-gather's share of each group's data: dense over dp × cp, experts over theirs.
      const held =
        (ringFactor(cp * d) / 2) * (stage.parameters - stage.experts) +
        (expertDp > 1 ? (ringFactor(expertDp) / 2) * stage.experts : 0);
      const grads = held * run.recipeBytes.gradients;
      const params = held * run.recipeBytes.parameters;
      const seconds = (/** @type {number} */ sent) =>
        placed.dataSpansNodes ? sent / placed.dataPerNode / hw.network_bandwidth : sent / hw.nvlink_bandwidth;
      const perMicro = compute / m;
      const total = c.flops_per_parameter.none;
      if (lay.zero === 3) {
        // Each pass hides only its own traffic: the forward's gather, then the backward's gather and reduce-scatter.
        const forward =
          (perMicro * c.forward_flops_per_parameter) /
          c.flops_per_parameter[lay.recompute === "full" ? "full" : "none"];
        if (lay.hybrid) {
          // `planner._hybrid_seconds`: ZeRO-3 within the node over NVLink each micro-batch, and the gradient
          // shard's all-reduce across the nodes once a step, behind the last micro-batch's backward pass.
          const { shard, replicas } = hybridGroups(hw, lay);
          const all = stage.parameters;
          const within = (/** @type {number} */ bytes) => ((ringFactor(shard) / 2) * all * bytes) / hw.nvlink_bandwidth;
          const gather = within(run.recipeBytes.parameters);
          const scatter = within(run.recipeBytes.gradients);
          const reduced = (ringFactor(replicas) * all * run.recipeBytes.gradients) / shard;
          data =
            m * (Math.max(0, gather - forward) + Math.max(0, gather + scatter - (perMicro - forward))) +
            Math.max(0, reduced / hw.network_bandwidth - (perMicro - forward));
        } else {
          data =
            m * (Math.max(0, seconds(params) - forward) + Math.max(0, seconds(params + grads) - (perMicro - forward)));
        }
      } else {
        const backward = (perMicro * c.backward_flops_per_parameter) / total;
        const forward = (perMicro * c.forward_flops_per_parameter) / total;
        if (lay.zero === 0) data = Math.max(0, seconds(2 * grads) - backward);
        else data = Math.max(0, seconds(grads) - backward) + Math.max(0, seconds(params) - forward);
      }
    }
    let pipeline = 0;
    let bubble = 0;
    if (p > 1) {
      const crossing = (lay.micro_batch * local * s.hidden * c.activation_bytes) / t;
      const link = placed.boundaryCrossesNodes ? hw.network_bandwidth : hw.nvlink_bandwidth;
      pipeline = (2 * m * lay.chunks * crossing) / link;
      bubble = ((p - 1) / m) * (compute + tensor + context + expert);
    }
    return {
      compute,
      bubble,
      tensor,
      data,
      pipeline,
      context,
      expert,
      total: compute + bubble + tensor + data + pipeline + context + expert,
    };
  }

  /** `planner.counted`: a count and its noun, singular for one. */
  function counted(config, n, noun) {
    return `${n.toLocaleString("en")} ${n === 1 ? noun : config.plurals[noun]}`;
  }

  /** A rule's words, its template filled as Python's `str.format` fills it. */
  function ruleOf(config, id, values = {}) {
    const message = config.rules[id].replace(/\{(\w+)\}/g, (/** @type {string} */ _, name) => String(values[name]));
    return { rule: id, message };
  }

  /** `planner.broken_rule`: the first rule the layout breaks, or null. */
  function brokenRule(config, s, hw, run, lay) {
    const { tp: t, pp: p, dp: d } = lay;
    const cp = lay.cp ?? 1;
    const ep = lay.ep ?? 1;
    const gpus = hw.per_node * hw.nodes;
    const rule = (/** @type {string} */ id, values = {}) => ruleOf(config, id, values);
    if (t * cp * p * d !== gpus) return rule("gpus", { tp: t, cp, pp: p, dp: d, product: t * cp * p * d, gpus });
    if (t > hw.per_node || hw.per_node % t) {
      const where = config.tp_node_where[t > hw.per_node ? "beyond" : "divide"];
      return rule("tp-node", { tp: t, where, per_node: hw.per_node });
    }
    if (s.heads % t) return rule("tp-heads", { tp: t, heads: s.heads });
    if (s.kv_heads % t) return rule("tp-kv-heads", { tp: t, kv_heads: s.kv_heads });
    const width = s.experts ? s.expert_ffn : s.ffn;
    if (width % t) return rule("tp-ffn", { tp: t, width });
    if (run.sequence % (2 * cp) && cp > 1) {
      return rule("cp-sequence", { cp, sequence: run.sequence.toLocaleString("en"), chunks: 2 * cp });
    }
    if (ep > 1 && !s.experts) return rule("ep-dense", { ep });
    if (s.experts && s.experts % ep) return rule("ep-experts", { ep, experts: s.experts });
    if ((cp * d) % ep) return rule("ep-devices", { ep, group: cp * d });
    if (lay.sequence_parallel && t < 2) return rule("sequence-parallel");
    if (s.layers % p) return rule("pp-layers", { pp: p, layers: s.layers });
    if (lay.chunks > 1 && (p < 2 || Math.floor(s.layers / p) % lay.chunks)) {
      return rule("chunks", { per_stage: Math.floor(s.layers / p), chunks: lay.chunks });
    }
    if (run.global_batch % run.sequence) {
      return rule("batch-sequence", { global_batch: run.global_batch, sequence: run.sequence });
    }
    const sequences = Math.floor(run.global_batch / run.sequence);
    if (sequences % d) return rule("batch-dp", { sequences: counted(config, sequences, "sequence"), dp: d });
    const perReplica = Math.floor(sequences / d);
    if (perReplica % lay.micro_batch) {
      return rule("batch-micro", {
        per_replica: counted(config, perReplica, "sequence"),
        micro_batch: lay.micro_batch,
      });
    }
    const microbatches = Math.floor(sequences / (d * lay.micro_batch));
    if (microbatches < p) {
      return rule("micro-stages", { microbatches: counted(config, microbatches, "micro-batch"), pp: p });
    }
    if (lay.chunks > 1 && microbatches % p) return rule("micro-interleaved", { microbatches, pp: p });
    if (lay.zero && d * cp < 2) return rule("zero-dp", { zero: lay.zero });
    if (lay.zero >= 2 && p > 1) return rule("zero-pipeline", { zero: lay.zero, pp: p });
    if (lay.hybrid) {
      const why = config.hybrid_why;
      const placed = rankPlacement(t, p, d * cp, hw.per_node);
      let reason = null;
      if (lay.zero !== 3) reason = formatted(why.zero, { zero: lay.zero });
      else if (ep > 1) reason = formatted(why.experts, { ep });
      else if (!placed.dataSpansNodes) reason = formatted(why.nodes, { group: d * cp });
      else if (placed.dataPerNode < 2) reason = why.shard;
      if (reason !== null) return rule("hybrid", { why: reason });
    }
    return null;
  }

  /** A request's run with its recipe's bytes by role and the page's fixed choices (`planner.Run`'s defaults). */
  function prepared(config, request) {
    const recipe = config.recipes.find((/** @type {Json} */ r) => r.id === request.run.recipe);
    const recipeBytes = { parameters: recipe.parameters, gradients: recipe.gradients, optimizer: recipe.optimizer };
    const run = { ...request.run, recipeBytes, attention: config.constants.attention };
    return { c: { ...config.constants, stages: config.stages }, s: request.shape, hw: request.hardware, run };
  }

  /** `planner.evaluate`: one layout's plan, or the first rule it breaks (`ready` and `count`: made once a plan). */
  function evaluateLayout(config, request, lay, count = null, ready = null) {
    const { c, s, hw, run } = ready ?? prepared(config, request);
    const broken = brokenRule(config, s, hw, run, lay);
    if (broken) return broken;
    count = count ?? parameterCount(c, s);
    const stages = lay.pp > 1 ? [0, lay.pp - 1] : [0];
    let stage = 0;
    let memory = null;
    for (const candidate of stages) {
      const found = stageMemory(c, s, count, hw, run, lay, candidate);
      if (memory === null || found.total > memory.total) [stage, memory] = [candidate, found];
    }
    const time = stepTime(c, s, count, hw, run, lay);
    const gpus = hw.per_node * hw.nodes;
    const tokens = Math.floor(run.global_batch / run.sequence) * run.sequence;
    const tokensPerSecond = tokens / time.total;
    const modelFlops = flopsPerToken(c, s, count, run.sequence, "none") * tokens;
    const shareOfPeak = modelFlops / (time.total * gpus * hw.peak_flops);
    const gpuHours = run.training_tokens === null ? null : ((run.training_tokens / tokensPerSecond) * gpus) / 3600;
    const cost = gpuHours === null || run.price === null ? null : gpuHours * run.price;
    const steps = trainingSteps(run);
    const days = steps === null ? null : (steps * time.total) / 86400;
    const { total, ...parts } = time;
    return {
      layout: lay,
      memory,
      stage,
      capacity: hw.memory,
      fits: memory.total <= hw.memory,
      time: parts,
      step_seconds: total,
      tokens_per_second: tokensPerSecond,
      share_of_peak: shareOfPeak,
      gpu_hours: gpuHours,
      cost,
      days,
    };
  }

  /** `planner.training_steps`: the training tokens over the global batch, the last partial step whole. Exact in
   * floats: both are integers below 2⁵³, and so is the remainder. */
  function trainingSteps(run) {
    if (run.training_tokens === null) return null;
    const rest = run.training_tokens % run.global_batch;
    return (run.training_tokens - rest) / run.global_batch + (rest ? 1 : 0);
  }

  /** `planner.model_flops`: the FLOPs per token a plan counts, 6N over the parameters that multiply and attention's. */
  function modelFlops(c, s, count, sequence) {
    const total = flopsPerToken(c, s, count, sequence, "none");
    const matmul = c.flops_per_parameter.none * count.matmul;
    return { matmul, attention: total - matmul, total };
  }

  const gcd = (/** @type {number} */ a, /** @type {number} */ b) => (b ? gcd(b, a % b) : a);

  /** `planner.batch_hint` in words (`planner.batch_hint_words`): what the global batch rules out, and the nearest
   * batches every data-parallel degree tried divides, or null. */
  function batchHint(config, run, invalid, degrees) {
    const ruled = invalid.filter((/** @type {Json} */ item) => item.rule === "batch-dp");
    if (!ruled.length) return null;
    const sequences = Math.floor(run.global_batch / run.sequence);
    const step = [...degrees].reduce((a, b) => (a / gcd(a, b)) * b, 1);
    const lower = Math.floor(sequences / step) * step;
    const upper = Math.ceil(sequences / step) * step;
    const words = config.batch_hint_words;
    const n = (/** @type {number} */ value) => value.toLocaleString("en");
    const values = {
      lower: n(lower),
      upper: n(upper),
      lower_tokens: n(lower * run.sequence),
      upper_tokens: n(upper * run.sequence),
    };
    const layouts = ruled.reduce((sum, item) => sum + item.layouts, 0);
    return formatted(words.hint, {
      layouts: `${n(layouts)} layout${layouts === 1 ? "" : "s"}`,
      sequences: counted(config, sequences, "sequence"),
      degrees: ruled
        .map((item) => item.layout.dp)
        .sort((a, b) => a - b)
        .join(", "),
      nearest: formatted(words[lower ? "both" : "above"], values),
    });
  }

  /** `planner.divisors`: every divisor of n, smallest first. */
  function divisors(n) {
    const small = [];
    for (let k = 1; k * k <= n; k++) if (n % k === 0) small.push(k);
    return [
      ...small,
      ...small
        .reverse()
        .filter((k) => k * k !== n)
        .map((k) => n / k),
    ];
  }

  /** `planner.layouts`: every layout to consider, with the fixed fields held. */
  function* layouts(config, request) {
    const { shape, hardware: hw, run, fixed } = request;
    const n = hw.per_node * hw.nodes;
    const sequences = run.global_batch % run.sequence === 0 ? run.global_batch / run.sequence : 1;
    const searched = (/** @type {string} */ name, /** @type {number[]} */ degrees) =>
      name in fixed ? [fixed[name]] : degrees;
    for (const t of searched("tp", divisors(n))) {
      for (const cp of searched("cp", n % t === 0 ? divisors(n / t) : [1])) {
        const rest = n % (t * cp) === 0 ? n / (t * cp) : 1;
        for (const p of searched("pp", divisors(rest))) {
          const d = n % (t * cp * p) === 0 ? n / (t * cp * p) : 1;
          const perReplica = sequences % d === 0 ? sequences / d : 1;
          for (const ep of searched("ep", shape.experts ? divisors(cp * d) : [1])) {
            for (const zero of config.constants.zero_stages) {
              for (const hybrid of zero === 3 ? [false, true] : [false]) {
                for (const sp of t > 1 ? [false, true] : [false]) {
                  for (const micro of divisors(perReplica)) {
                    for (const recompute of config.constants.recomputations) {
                      yield {
                        tp: t,
                        pp: p,
                        dp: d,
                        zero,
                        micro_batch: micro,
                        recompute,
                        sequence_parallel: sp,
                        chunks: 1,
                        cp,
                        ep,
                        hybrid,
                      };
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }

  /** `planner.tied`: a step's seconds or bytes to `TIE_DIGITS` significant digits, as ranking compares them. */
  const tied = (/** @type {Json} */ config, /** @type {number} */ value) =>
    Number(value.toPrecision(config.tie_digits));

  /** `planner.layout_order`: how layouts that tie in time and memory are ordered, simpler first. */
  function layoutOrder(config, lay) {
    const recompute = config.constants.recomputations.indexOf(lay.recompute);
    return [
      lay.tp,
      lay.cp,
      lay.pp,
      lay.ep,
      lay.zero,
      lay.hybrid ? 1 : 0,
      lay.sequence_parallel ? 1 : 0,
      lay.micro_batch,
      recompute,
      lay.chunks,
    ];
  }

  /** Plans in `planner._plan`'s order: by `first` and then `second` (each `tied`), then by `layoutOrder`. */
  function rankedBy(config, plans, first, second) {
    const key = (/** @type {Json} */ plan) => [
      tied(config, first(plan)),
      tied(config, second(plan)),
      ...layoutOrder(config, plan.layout),
    ];
    const keyed = plans.map((plan) => ({ plan, key: key(plan) }));
    keyed.sort((a, b) => {
      const at = a.key.findIndex((value, i) => value !== b.key[i]);
      return at < 0 ? 0 : a.key[at] - b.key[at];
    });
    return keyed.map((item) => item.plan);
  }

  /** `planner._reason`: why a plan sits where it does. */
  function reasonOf(config, plan, best) {
    if (!plan.fits) {
      const part = config.roles.reduce((a, b) => (plan.memory[b] > plan.memory[a] ? b : a));
      return { kind: "does-not-fit", slower_by: 0, part, extra: plan.memory.total - plan.capacity };
    }
    if (best === null || plan === best) return { kind: "fastest", slower_by: 0, part: "", extra: 0 };
    if (tied(config, plan.step_seconds) === tied(config, best.step_seconds)) {
      return { kind: "as-fast", slower_by: 0, part: "memory", extra: plan.memory.total - best.memory.total };
    }
    const extra = Object.fromEntries(config.time_parts.map((part) => [part, plan.time[part] - best.time[part]]));
    const part = config.time_parts.reduce((a, b) => (extra[b] > extra[a] ? b : a));
    return { kind: "slower", slower_by: plan.step_seconds / best.step_seconds - 1, part, extra: extra[part] };
  }

  // -------------------------------------------------------- the reader's input

  const formatted = (/** @type {string} */ template, /** @type {Json} */ values) =>
    template.replace(/\{(\w+)\}/g, (_, name) => String(values[name]));

  /** `pictures.planner.read`: the reader's input as a request, or the problems by field. */
  function read(config, inputs) {
    const m = config.messages;
    /** @type {Record<string, string>} */
    const problems = {};
    const space = config.patterns.space;
    const trim = new RegExp(`^${space}+|${space}+$`, "g");
    const text = Object.fromEntries(config.fields.map((name) => [name, String(inputs[name] ?? "").replace(trim, "")]));
    const whole = (/** @type {string} */ name) => {
      const typed = text[name];
      if (!new RegExp(config.patterns.whole).test(typed)) {
        problems[name] = m[typed ? "whole" : "empty"];
        return null;
      }
      const value = Number(typed.replace(/,/g, ""));
      if (value < 1) problems[name] = m.below_one;
      else if (value > config.limits[name]) problems[name] = m[`too_many_${name}`];
      return name in problems ? null : value;
    };
    const decimal = (/** @type {string} */ name) => {
      const value = new RegExp(config.patterns.decimal).test(text[name]) ? Number(text[name]) : null;
      const leastOk = value !== null && (name === "share" ? value >= config.least_share : value > 0);
      if (value === null || !leastOk || value > config.limits[name]) {
        problems[name] = m[name];
        return null;
      }
      return value;
    };
    const chosen = config.models.find((/** @type {Json} */ x) => x.id === text.model) ?? null;
    if (!chosen && text.model !== config.custom) problems.model = m.pick;
    /** @type {Json} */
    let typed = {};
    if (!chosen && text.model === config.custom) {
      typed = Object.fromEntries(config.shape_fields.map((name) => [name, whole(name)]));
      for (const name of ["mlp", "embeddings", "biases"]) if (!(text[name] in config[name])) problems[name] = m.pick;
      typed.head_dim = text.head_dim ? whole("head_dim") : 0;
      const { heads, kv_heads: kvHeads, hidden } = typed;
      if (heads && kvHeads && heads % kvHeads) problems.kv_heads = formatted(m.kv_groups, { heads, kv_heads: kvHeads });
      if (heads && hidden && hidden % heads && !text.head_dim) {
        problems.heads = formatted(m.head_width, { hidden, heads });
      }
    }
    const gpu = config.gpus.find((/** @type {Json} */ g) => g.id === text.gpu);
    if (!gpu) problems.gpu = m.pick;
    if (!config.recipes.some((/** @type {Json} */ r) => r.id === text.recipe)) problems.recipe = m.pick;
    const counts = Object.fromEntries(
      ["per_node", "nodes", "sequence", "global_batch"].map((name) => [name, whole(name)]),
    );
    const share = decimal("share");
    /** @type {Json} */
    const fixed = Object.fromEntries(config.degrees.filter((name) => text[name]).map((name) => [name, whole(name)]));
    let trainingTokens = null;
    if (text.training_tokens) {
      const value = new RegExp(config.patterns.tokens).test(text.training_tokens)
        ? Number(text.training_tokens.replace(/,/g, ""))
        : null;
      if (value === null || !Number.isInteger(value)) problems.training_tokens = m.tokens;
      else if (value < 1) problems.training_tokens = m.below_one;
      else if (value > config.limits.training_tokens) problems.training_tokens = m.too_many_training_tokens;
      else trainingTokens = value;
    }
    const price = text.price ? decimal("price") : null;
    const links = Object.fromEntries(
      config.link_fields.map((/** @type {string} */ name) => [name, text[name] ? decimal(name) : null]),
    );
    const { per_node: perNode, nodes, sequence, global_batch: globalBatch } = counts;
    const n = perNode && nodes ? perNode * nodes : null;
    if (n !== null && n > config.limits.gpus) problems.nodes = m.too_many_gpus;
    else if (n !== null) {
      for (const name of config.degrees) {
        const value = fixed[name];
        // A tensor-parallel group stays on a node (rule "tp-node"): only degrees that keep it are offered.
        const within = name === "tp" && perNode ? gcd(n, perNode) : n;
        if (value && n % value) {
          problems[name] = formatted(m.degree, { value, gpus: n, divisors: divisors(within).join(", ") });
        } else if (value && within % value) {
          problems[name] = formatted(m.degree_node, {
            value,
            per_node: perNode,
            divisors: divisors(within).join(", "),
          });
        }
      }
      // tp × cp × pp are a layout's model-parallel degrees (ep regroups tp·cp·dp): their product divides the GPUs.
      const given = ["tp", "cp", "pp"].filter((name) => fixed[name] && !problems[name]);
      const product = given.reduce((total, name) => total * fixed[name], 1);
      if (given.length > 1 && n % product) {
        problems[given[given.length - 1]] = formatted(m.degrees, { names: given.join(" × "), product, gpus: n });
      }
    }
    if (sequence && globalBatch && globalBatch % sequence) {
      problems.global_batch = formatted(m.batch_sequences, { global_batch: globalBatch, sequence });
    }
    if (Object.keys(problems).length) return { problems, request: null };
    const shape = chosen
      ? { ...chosen.shape }
      : {
          ...config.shape_defaults,
          ...config.custom_shape,
          ...typed,
          gated: text.mlp === "gated",
          tied: text.embeddings === "tied",
          attention_bias: text.biases === "qkv",
        };
    return {
      problems,
      request: {
        shape,
        hardware: {
          peak_flops: gpu.peak_flops,
          memory: gpu.memory,
          // Multiplied in floats, as Python multiplies them, so that both get the same bytes a second.
          nvlink_bandwidth: links.nvlink_gbyte_s === null ? gpu.nvlink : links.nvlink_gbyte_s * config.gigabyte,
          network_bandwidth: links.network_gbit_s === null ? gpu.network : links.network_gbit_s * config.gigabit,
          per_node: perNode,
          nodes,
        },
        run: {
          sequence,
          global_batch: globalBatch,
          share: share / 100,
          recipe: text.recipe,
          training_tokens: trainingTokens,
          price,
        },
        fixed: Object.fromEntries(Object.entries(fixed).filter(([, value]) => value !== null)),
      },
    };
  }

  /** `pictures.planner.evaluate`: problems, or the plan: parameters, the best layouts, and the rules broken. */
  function compute(config, inputs) {
    const { problems, request } = read(config, inputs);
    if (!request) return { problems };
    const considered = [];
    for (const lay of layouts(config, request)) {
      considered.push(lay);
      if (considered.length > config.max_layouts) return { problems: { layouts: config.messages.too_many_layouts } };
    }
    const ready = prepared(config, request);
    const count = parameterCount(ready.c, ready.s);
    const plans = [];
    /** @type {Map<string, Json>} */
    const invalid = new Map();
    for (const lay of considered) {
      const result = evaluateLayout(config, request, lay, count, ready);
      if ("rule" in result) {
        const key = `${result.rule}\n${result.message}`;
        const seen = invalid.get(key);
        if (seen) seen.layouts += 1;
        else invalid.set(key, { ...result, layouts: 1, layout: lay });
      } else plans.push(result);
    }
    if (!plans.length) {
      const first = invalid.values().next().value;
      // The lessons' message: the first rule alone (the command line adds the batch's hint).
      return { problems: { layouts: formatted(config.messages.no_layout, { message: first ? first.message : "" }) } };
    }
    const stepOf = (/** @type {Json} */ p) => p.step_seconds;
    const bytesOf = (/** @type {Json} */ p) => p.memory.total;
    const fitting = rankedBy(
      config,
      plans.filter((p) => p.fits),
      stepOf,
      bytesOf,
    );
    const others = rankedBy(
      config,
      plans.filter((p) => !p.fits),
      bytesOf,
      stepOf,
    );
    const best = fitting.length ? fitting[0] : null;
    const ranked = [...fitting, ...others];
    const found = [...invalid.values()];
    return {
      problems: {},
      parameters: { total: count.total, active: count.active },
      gpus: request.hardware.per_node * request.hardware.nodes,
      flops: modelFlops(ready.c, ready.s, count, request.run.sequence),
      steps: trainingSteps(request.run),
      batch_hint: batchHint(config, request.run, found, new Set(considered.map((lay) => lay.dp))),
      plans: ranked.slice(0, config.top).map((plan) => ({ ...plan, reason: reasonOf(config, plan, best) })),
      valid: plans.length,
      fitting: fitting.length,
      broken: [...invalid.values()].reduce((sum, item) => sum + item.layouts, 0),
      invalid: [...invalid.values()],
    };
  }

  // ----------------------------------------------------------------- storage
  // Keys scoped by the site's base path, as the calculator keeps its inputs; every access guarded; a size
  // cap; a stored value that is not what we wrote is dropped, field by field.

  const VERSION = 1;
  const MAX_LENGTH = 4000;
  const MAX_FIELD = 40;

  function key(form) {
    let base = ".";
    try {
      base = JSON.parse(document.getElementById("__config").textContent).base;
    } catch {
      // No Material config: the page's own folder is the best scope left.
    }
    return `sbn:${new URL(base, location.href).pathname}:${form.dataset.sbnPlanner}`;
  }

  // Whether `value` is one the form's field `name` could have written: text within the cap, and for a list one of
  // its options (an unknown id, or "__proto__", is none of them).
  function offered(form, name, value) {
    const input = form.elements[name];
    if (typeof value !== "string" || value.length > MAX_FIELD) return false;
    return input?.tagName !== "SELECT" || [...input.options].some((o) => o.value === value);
  }

  // The stored inputs that fit, once the form's lists are filled; a value dropped is removed from storage too,
  // so that the lesson's value shows now and after a reload.
  function load(form, config) {
    let stored;
    try {
      stored = localStorage.getItem(key(form));
      const state = JSON.parse(stored);
      const inputs = state && state.v === VERSION && typeof state.inputs === "object" && state.inputs;
      const kept = inputs ? config.fields.filter((f) => Object.hasOwn(inputs, f) && offered(form, f, inputs[f])) : [];
      const fitting = Object.fromEntries(kept.map((f) => [f, inputs[f]]));
      if (!inputs || kept.length !== Object.keys(inputs).length) {
        if (kept.length) save(form, fitting);
        else localStorage.removeItem(key(form));
      }
      return fitting;
    } catch {
      if (stored != null) forget(form);
      return {};
    }
  }

  function forget(form) {
    try {
      localStorage.removeItem(key(form));
    } catch {
      // Disabled: nothing stored to forget.
    }
  }

  function save(form, inputs) {
    try {
      const text = JSON.stringify({ v: VERSION, inputs });
      if (text.length <= MAX_LENGTH) localStorage.setItem(key(form), text);
    } catch {
      // Full or disabled: keep going without remembering.
    }
  }

  // ----------------------------------------------------------------- display

  const GIB = 2 ** 30;

  function element(tag, attributes = {}, text = "") {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
    if (text) node.textContent = text;
    return node;
  }

  const grouped = (/** @type {number} */ value, digits = 0) =>
    value.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const gib = (/** @type {number} */ bytes) => grouped(bytes / GIB, 1);
  const percent = (/** @type {number} */ share) => `${grouped(100 * share, 1)}%`;
  const seconds = (/** @type {number} */ value) => Number(value.toPrecision(3)).toLocaleString("en");

  /** A plan's reason in words, as tools.plan words it. */
  function reasonWords(config, plan) {
    const r = plan.reason;
    if (r.kind === "fastest") return "the fastest layout that fits";
    if (r.kind === "as-fast" && !r.extra) return "as fast as #1, with as much on its most loaded GPU";
    if (r.kind === "as-fast") return `as fast as #1, with ${grouped(r.extra / GIB, 2)} GiB more on its most loaded GPU`;
    if (r.kind === "slower") {
      return `${percent(r.slower_by)} slower than #1: +${seconds(r.extra)} s of ${config.time_part_words[r.part]}`;
    }
    return `does not fit: ${gib(r.extra)} GiB over the ${gib(plan.capacity)} GiB CUDA gives programs; its largest part is ${r.part}`;
  }

  function option(select, value, text) {
    select.append(element("option", { value }, text));
  }

  function fill(form, config) {
    const field = (name) => form.elements[name];
    for (const m of config.models) option(field("model"), m.id, m.name);
    option(field("model"), config.custom, "Another model (type its shape)");
    for (const g of config.gpus) option(field("gpu"), g.id, g.name);
    for (const r of config.recipes) option(field("recipe"), r.id, r.short);
    for (const [id, name] of Object.entries(config.mlp)) option(field("mlp"), id, name);
    for (const [id, name] of Object.entries(config.embeddings)) option(field("embeddings"), id, name);
    for (const [id, name] of Object.entries(config.biases)) option(field("biases"), id, name);
  }

  function readInputs(form, config) {
    return Object.fromEntries(config.fields.map((name) => [name, form.elements[name].value]));
  }

  // A model from the list shows its shape in the shape's fields; typing in one makes the shape the reader's.
  function showShape(form, config) {
    const chosen = config.models.find((m) => m.id === form.elements.model.value);
    if (!chosen) return;
    for (const name of config.shape_fields) form.elements[name].value = String(chosen.shape[name]);
    form.elements.mlp.value = chosen.shape.gated ? "gated" : "plain";
    form.elements.embeddings.value = chosen.shape.tied ? "tied" : "untied";
    form.elements.biases.value = chosen.shape.attention_bias ? "qkv" : "none";
    form.elements.head_dim.value = chosen.shape.head_dim ? String(chosen.shape.head_dim) : "";
  }

  function setInputs(form, config, inputs) {
    for (const [name, value] of Object.entries(inputs)) {
      const input = form.elements[name];
      if (!input) continue;
      // A remembered choice that the lists no longer offer is dropped, not forced.
      if (input.tagName === "SELECT" && ![...input.options].some((o) => o.value === value)) continue;
      input.value = value;
    }
    showShape(form, config);
  }

  const HEADINGS = [
    ["#", "rank"],
    ["tp", "tensor-parallel degree"],
    ["cp", "context-parallel degree"],
    ["ep", "expert-parallel degree"],
    ["pp", "pipeline-parallel degree"],
    ["dp", "data-parallel degree"],
    ["ZeRO", "ZeRO stage (HSDP: FSDP's hybrid sharding, ZeRO-3 within each node, copies across nodes)"],
    ["SP", "sequence parallelism"],
    ["mb", "micro-batch, in sequences"],
    ["recompute", "recomputation"],
    ["params GiB", "parameters"],
    ["grads GiB", "gradients"],
    ["optimizer GiB", "optimizer states"],
    ["activations GiB", "activations"],
    ["reserve GiB", "held back"],
    ["total GiB", "on the most loaded GPU"],
    ["fits", "within what CUDA gives programs"],
    ["step s", "seconds a step"],
    ["tokens/s", "tokens a second"],
    ["MFU", "model FLOPs (6N over the parameters that multiply, plus attention) over the peak"],
  ];

  // Wrapped as Material wraps a page's tables, so that it scrolls in its own box with the course's shadows and
  // its caption stays whole; the box takes the keyboard's focus, to be scrolled without a mouse. A dense model's
  // expert-parallel degree is always 1: its column is left out.
  function table(config, result, runWithTokens, withPrice, experts) {
    const caption = `The best ${result.plans.length} layouts, the fastest that fit first`;
    const scroll = element("div", {
      class: "md-typeset__scrollwrap",
      tabindex: "0",
      role: "region",
      "aria-label": caption,
    });
    const inner = element("div", { class: "md-typeset__table" });
    const node = element("table");
    node.append(element("caption", {}, caption));
    const head = node.createTHead().insertRow();
    const headings = HEADINGS.filter(([short]) => experts || short !== "ep");
    if (runWithTokens) headings.push(["days", "wall-clock days of the run's steps at this step time"]);
    if (runWithTokens) headings.push(["GPU-hours", "for the training tokens"]);
    if (withPrice) headings.push(["cost", "at the price given"]);
    headings.push(["why", "the reason for its rank"]);
    for (const [short, long] of headings) head.append(element("th", { scope: "col", title: long }, short));
    const body = node.createTBody();
    result.plans.forEach((plan, index) => {
      const lay = plan.layout;
      const cells = [
        String(lay.tp),
        String(lay.cp),
        ...(experts ? [String(lay.ep)] : []),
        String(lay.pp),
        String(lay.dp),
        lay.hybrid ? "HSDP" : String(lay.zero),
        lay.sequence_parallel ? "on" : "off",
        String(lay.micro_batch),
        lay.recompute,
        ...config.roles.map((role) => gib(plan.memory[role])),
        gib(plan.memory.total),
        plan.fits ? "yes" : "no",
        seconds(plan.step_seconds),
        grouped(plan.tokens_per_second),
        percent(plan.share_of_peak),
      ];
      if (runWithTokens) cells.push(grouped(plan.days, 1));
      if (runWithTokens) cells.push(grouped(plan.gpu_hours));
      if (withPrice) cells.push(`$${grouped(plan.cost)}`);
      cells.push(reasonWords(config, plan));
      const row = body.insertRow();
      if (!plan.fits) row.className = "sbn-planner__row--no-fit";
      row.append(element("th", { scope: "row" }, String(index + 1)));
      for (const cell of cells) row.append(element("td", {}, cell));
    });
    inner.append(node);
    scroll.append(inner);
    return scroll;
  }

  function render(form, config, result, request) {
    for (const name of config.fields) {
      const input = form.elements[name];
      const problem = result.problems[name] ?? "";
      form.querySelector(`#${CSS.escape(input.id)}-problem`).textContent = problem;
      if (problem) input.setAttribute("aria-invalid", "true");
      else input.removeAttribute("aria-invalid");
    }
    const region = form.querySelector(".sbn-planner__result");
    region.replaceChildren();
    const problems = Object.keys(result.problems);
    if (problems.length) {
      const names = problems
        .filter((name) => form.elements[name])
        .map((name) => form.querySelector(`label[for="${CSS.escape(form.elements[name].id)}"]`).textContent);
      if (names.length) region.append(element("p", {}, `Not planned: check ${names.join("; ")}.`));
      if (result.problems.layouts) {
        region.append(element("p", { class: "sbn-planner__problem" }, result.problems.layouts));
      }
      return;
    }
    const model = form.elements.model.selectedOptions[0]?.textContent ?? "";
    const count = result.parameters;
    const active = count.active === count.total ? "" : `, ${grouped(count.active)} active per token`;
    const run = request.run;
    const hw = request.hardware;
    const gpu = config.gpus.find((g) => g.id === form.elements.gpu.value);
    const flops = result.flops;
    const given = (/** @type {string} */ name, /** @type {string} */ id) =>
      form.elements[name].value.trim() ? "as typed" : id;
    const summary = [
      `${model}: ${grouped(count.total)} parameters${active}, on ${grouped(result.gpus)} × ${gpu.name} (${gib(gpu.memory)} GiB each to programs). ` +
        `${grouped(result.valid)} valid layouts, ${grouped(result.fitting)} of them fit; ${grouped(result.broken)} break a rule.`,
    ];
    if (result.batch_hint) summary.push(` The batch: ${result.batch_hint}.`);
    const links =
      `Links, in decimal units each way: NVLink (${given("nvlink_gbyte_s", gpu.nvlink_id)}) ${grouped(hw.nvlink_bandwidth / config.gigabyte, 1)} GB/s per GPU; ` +
      `the network (${given("network_gbit_s", gpu.network_id)}) ${grouped(hw.network_bandwidth / config.gigabit, 1)} Gbit/s, a port per GPU` +
      (hw.nodes === 1 ? ", unused on one node." : ".");
    const sixN = config.constants.flops_per_parameter.none * count.total;
    const counting =
      `FLOPs per token: ${grouped(flops.total)}, ${Number((flops.total / count.total).toPrecision(3))} per parameter: 6N over the parameters that multiply (${grouped(flops.matmul)}) ` +
      `plus attention's 12·L·w·s (${grouped(flops.attention)}). The share of peak and the MFU column count these; 6N alone, as Lesson 3 counts, is ${grouped(sixN)}: ` +
      `an MFU measured against 6N is typed here as a share ${grouped(flops.total / sixN, 2)} times it.` +
      (result.steps === null
        ? ""
        : ` ${grouped(run.training_tokens)} training tokens are ${grouped(result.steps)} steps of ${grouped(run.global_batch)} tokens (the last one whole): the days are those steps at each step time.`);
    region.append(
      element("p", {}, summary.join("")),
      element("p", { class: "sbn-planner__assumed" }, links),
      element("p", { class: "sbn-planner__assumed" }, counting),
      element(
        "p",
        { class: "sbn-planner__assumed" },
        `Assumed: ${percent(run.share)} of the dense bf16 peak, ${form.elements.recipe.selectedOptions[0]?.textContent}, ` +
          `${percent(config.constants.reserve)} of memory held back, ${config.constants.attention} attention, the 1F1B schedule; ` +
          "every time is a bound at that share and the links' bandwidths, not a measurement. " +
          "The activations count the fp32 logits and the dropout masks, as Korthikanti et al. count them: a model trained without dropout, as Llama is, keeps a byte per value of each layer's masks less." +
          (run.training_tokens !== null && run.price === null ? " No price given, so no cost." : ""),
      ),
      table(
        config,
        result,
        run.training_tokens !== null,
        run.training_tokens !== null && run.price !== null,
        Boolean(request.shape.experts),
      ),
    );
    if (result.invalid.length) {
      const details = element("details", { class: "sbn-planner__invalid" });
      details.append(
        element("summary", {}, `Layouts that break a rule: ${grouped(result.broken)}, the first rule each breaks`),
      );
      const list = element("ul");
      for (const item of result.invalid) {
        const lay = item.layout;
        const example = `tp ${lay.tp} × pp ${lay.pp} × dp ${lay.dp}, ZeRO-${lay.zero}, micro-batch ${lay.micro_batch}`;
        list.append(element("li", {}, `${grouped(item.layouts)} layouts, such as ${example}: ${item.message}`));
      }
      details.append(list);
      region.append(details);
    }
  }

  function update(form, saving = true) {
    const config = JSON.parse(form.dataset.sbnConfig);
    const inputs = readInputs(form, config);
    const { request } = read(config, inputs);
    render(form, config, compute(config, inputs), request);
    if (saving) save(form, inputs);
  }

  function mount() {
    /** @type {NodeListOf<HTMLFormElement>} */
    const forms = document.querySelectorAll("form[data-sbn-planner]:not([data-sbn-mounted])");
    for (const form of forms) {
      const config = JSON.parse(form.dataset.sbnConfig);
      form.dataset.sbnMounted = "";
      fill(form, config);
      setInputs(form, config, { ...JSON.parse(form.dataset.sbnDefaults), ...load(form, config) });
      /** @type {HTMLElement} */ (form.querySelector(".sbn-planner__actions")).hidden = false;
      /** @type {HTMLElement} */ (form.querySelector(".sbn-planner__noscript")).hidden = true;
      update(form, false);
    }
  }

  /** @type {(event: Event) => HTMLInputElement} */
  const targetOf = (event) => /** @type {HTMLInputElement} */ (event.target);
  /** @type {(event: Event) => HTMLFormElement | null} */
  const formOf = (event) => targetOf(event).closest("form[data-sbn-planner][data-sbn-mounted]");

  // The table follows the typing, a moment after the last key, so that a plan of thousands of layouts is not
  // made for every digit; a form that instant navigation has since replaced is left alone.
  const DEBOUNCE_MS = 300;
  /** @type {WeakMap<HTMLFormElement, number>} */
  const pending = new WeakMap();

  document.addEventListener("submit", (event) => {
    const form = formOf(event);
    if (!form) return;
    event.preventDefault();
    window.clearTimeout(pending.get(form));
    update(form);
  });

  document.addEventListener("change", (event) => {
    const form = formOf(event);
    if (!form) return;
    window.clearTimeout(pending.get(form));
    if (targetOf(event).name === "model") showShape(form, JSON.parse(form.dataset.sbnConfig));
    update(form);
  });

  // Typing a shape's count, or choosing its MLP, embeddings or biases, makes the shape the reader's own.
  document.addEventListener("input", (event) => {
    const form = formOf(event);
    if (!form) return;
    const config = JSON.parse(form.dataset.sbnConfig);
    if ([...config.shape_fields, "head_dim", "mlp", "embeddings", "biases"].includes(targetOf(event).name)) {
      /** @type {HTMLSelectElement} */ (form.elements.namedItem("model")).value = config.custom;
    }
    window.clearTimeout(pending.get(form));
    pending.set(
      form,
      window.setTimeout(() => {
        if (form.isConnected) update(form);
      }, DEBOUNCE_MS),
    );
  });

  // Reset: the lesson's first values, and nothing remembered.
  document.addEventListener("click", (event) => {
    const button = targetOf(event).closest("[data-sbn-reset]");
    const form = button ? formOf(event) : null;
    if (!form) return;
    const config = JSON.parse(form.dataset.sbnConfig);
    window.clearTimeout(pending.get(form));
    for (const name of config.fields) {
      /** @type {HTMLInputElement} */ (form.elements.namedItem(name)).value = "";
    }
    setInputs(form, config, JSON.parse(form.dataset.sbnDefaults));
    try {
      localStorage.removeItem(key(form));
    } catch {
      // Storage disabled: there is nothing remembered to forget.
    }
    update(form, false);
  });

  window.sbnPlanner = { compute, read, evaluateLayout };

  if (window.document$) window.document$.subscribe(mount);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mount);
  else mount();
})();
