//! The code-mode bench's markdown report.

use super::*;

// ---------------------------------------------------------------------------------------------
// The report.

/// 12,345
pub(crate) fn n(v: usize) -> String {
    mcpgen_config::text::group_digits(v)
}

pub(crate) fn ratio(a: usize, b: usize) -> String {
    if b == 0 { "-".into() } else { format!("{:.1}×", a as f64 / b as f64) }
}

pub(crate) fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

/// `chars (tokens)`.
pub(crate) fn ct(m: Measure) -> String {
    format!("{} ({})", n(m.chars), n(m.tokens))
}

pub(crate) fn report(outcomes: &[Outcome], overhead: Option<&Overhead>) {
    println!("## Per task\n");
    println!(
        "Tool-per-step: `describe_tools` (JSON definitions) for the tools used, then one call per step, plain \
         (with a `_jq` selection only on a call whose plain result would be reduced to the budget, see below). \
         Code mode: `describe_tools` (declarations) for the same tools, then one `run_script`. Read: those \
         answers and results as the client receives them (text blocks and `structuredContent`). Written: the \
         arguments of each call as JSON. Turns: model turns that call a tool.\n"
    );
    println!(
        "| # | task | calls | turns (steps / code) | read chars (steps / code) | read tokens (steps / code) | of which `describe_tools`, tokens (steps / code) | written chars (steps / code) | written tokens (steps / code) | read tokens, steps ÷ code |"
    );
    println!("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let mut total = [Measure::default(); 5];
    let (mut calls, mut turns_steps, mut turns_code) = (0, 0, 0);
    let (mut ctx_plain, mut ctx_selected, mut ctx_code) = (0, 0, 0);
    for (i, o) in outcomes.iter().enumerate() {
        let read_steps = o.steps_describe + o.plain.results;
        let read_code = o.code_describe + o.code_result;
        total[0] += read_steps;
        total[1] += read_code;
        total[2] += o.plain.written;
        total[3] += o.code_written;
        total[4] += o.steps_describe + o.selected.results;
        calls += o.plain.calls;
        turns_steps += o.plain.calls + 1;
        turns_code += 2;
        ctx_plain += o.plain.context;
        ctx_selected += o.selected.context;
        ctx_code += o.code_context;
        println!(
            "| {} | {}: {} | {} | {} / 2 | {} / {} | {} / {} | {} / {} | {} / {} | {} / {} | {} |",
            i + 1,
            o.api,
            o.title,
            o.plain.calls,
            o.plain.calls + 1,
            n(read_steps.chars),
            n(read_code.chars),
            n(read_steps.tokens),
            n(read_code.tokens),
            n(o.steps_describe.tokens),
            n(o.code_describe.tokens),
            n(o.plain.written.chars),
            n(o.code_written.chars),
            n(o.plain.written.tokens),
            n(o.code_written.tokens),
            ratio(read_steps.tokens, read_code.tokens),
        );
    }
    println!(
        "| | **total** | {calls} | {turns_steps} / {turns_code} | {} / {} | {} / {} | | {} / {} | {} / {} | {} |",
        n(total[0].chars),
        n(total[1].chars),
        n(total[0].tokens),
        n(total[1].tokens),
        n(total[2].chars),
        n(total[3].chars),
        n(total[2].tokens),
        n(total[3].tokens),
        ratio(total[0].tokens, total[1].tokens),
    );
    println!(
        "\nOver the ten tasks, tool-per-step ÷ code mode: read characters {}, read tokens {}, written tokens {}, \
         turns {}.",
        ratio(total[0].chars, total[1].chars),
        ratio(total[0].tokens, total[1].tokens),
        ratio(total[2].tokens, total[3].tokens),
        ratio(turns_steps, turns_code),
    );
    println!(
        "\nInput tokens over all turns, where each turn reads the whole conversation before it again (no prompt \
         cache; the task's prompt, the tool list and search left out): tool-per-step {}, code mode {} ({}).",
        n(ctx_plain),
        n(ctx_code),
        ratio(ctx_plain, ctx_code)
    );

    let text_only = |f: &dyn Fn(&Outcome) -> usize| -> usize { outcomes.iter().map(f).sum() };
    let (plain_text, code_text, selected_text) = (
        text_only(&|o| (o.steps_describe + o.plain.results).text_tokens),
        text_only(&|o| (o.code_describe + o.code_result).text_tokens),
        text_only(&|o| (o.steps_describe + o.selected.results).text_tokens),
    );
    println!(
        "\nText blocks alone (a client that passes the model only those, not `structuredContent`): read tokens \
         tool-per-step {}, code mode {} ({}); tool-per-step with `_jq` (below) {} ({}).",
        n(plain_text),
        n(code_text),
        ratio(plain_text, code_text),
        n(selected_text),
        ratio(selected_text, code_text)
    );

    println!("\n## Tool-per-step with `_jq` on every call\n");
    println!(
        "The same calls, each selecting only the fields the task needs with a `_jq` filter (a model that writes \
         one for every call, from the response shape `describe_tools` gives). Same requests upstream, same turns.\n"
    );
    println!(
        "| # | task | read chars (steps + `_jq` / code) | read tokens (steps + `_jq` / code) | written tokens (steps + `_jq` / code) | read tokens, steps + `_jq` ÷ code |"
    );
    println!("| ---: | --- | ---: | ---: | ---: | ---: |");
    let mut written_selected = Measure::default();
    for (i, o) in outcomes.iter().enumerate() {
        let read = o.steps_describe + o.selected.results;
        let read_code = o.code_describe + o.code_result;
        written_selected += o.selected.written;
        println!(
            "| {} | {}: {} | {} / {} | {} / {} | {} / {} | {} |",
            i + 1,
            o.api,
            o.title,
            n(read.chars),
            n(read_code.chars),
            n(read.tokens),
            n(read_code.tokens),
            n(o.selected.written.tokens),
            n(o.code_written.tokens),
            ratio(read.tokens, read_code.tokens)
        );
    }
    println!(
        "| | **total** | {} / {} | {} / {} | {} / {} | {} |",
        n(total[4].chars),
        n(total[1].chars),
        n(total[4].tokens),
        n(total[1].tokens),
        n(written_selected.tokens),
        n(total[3].tokens),
        ratio(total[4].tokens, total[1].tokens)
    );
    println!(
        "\nInput tokens over all turns (as above): tool-per-step with `_jq` {}, code mode {} ({}).",
        n(ctx_selected),
        n(ctx_code),
        ratio(ctx_selected, ctx_code)
    );

    let over: Vec<(usize, &OverBudget)> =
        outcomes.iter().enumerate().flat_map(|(i, o)| o.over_budget.iter().map(move |c| (i + 1, c))).collect();
    if !over.is_empty() {
        println!("\n## Calls over the result budget without `_jq`\n");
        println!(
            "Plain, these results were reduced to the budget and lost items the task needs (the answer would have \
             been wrong), so the tool-per-step way above calls them with `_jq`. The plain call is not counted there.\n"
        );
        println!("| # | tool | plain: chars (tokens) | the reduction | with `_jq`: chars (tokens) |");
        println!("| ---: | --- | ---: | --- | ---: |");
        for (task, OverBudget { tool, plain, note, selected }) in over {
            // What was kept, from the note's first line.
            let first = note.lines().next().unwrap_or("");
            let kept = first.split_once(" characters.").map_or(first, |(_, rest)| rest).trim_end_matches(']');
            println!("| {task} | `{tool}` | {} | {} | {} |", ct(*plain), kept.trim(), ct(*selected));
        }
    }

    let problems: Vec<(usize, &Outcome)> =
        outcomes.iter().enumerate().filter(|(_, o)| !o.problems.is_empty()).collect();
    if problems.is_empty() {
        println!(
            "\nChecks: in every task each way sent the same requests upstream (method, path, query and body; \
             in the same order where the script makes its calls one by one) and came to the same answer."
        );
    } else {
        println!("\n## MISMATCHES\n");
        for (i, o) in problems {
            for p in &o.problems {
                println!("- **task {}** ({}: {}): {p}", i + 1, o.api, o.title);
            }
        }
    }

    if let Some(o) = overhead {
        println!("\n## The sandbox's cost\n");
        println!("| what | time |");
        println!("| --- | ---: |");
        println!(
            "| a script (`return 1`, end to end through the engine), median of {EMPTY_RUNS} | {} |",
            ms(o.empty.0)
        );
        println!("| the same, p90 | {} |", ms(o.empty.1));
        println!(
            "| per API call from a script: {CALLS} awaited one by one, minus {CALLS} direct calls, ÷ {CALLS} (median of {CALL_REPS}) | {} |",
            ms(o.per_call)
        );
        println!("| a direct call, for comparison (same runs) | {} |", ms(o.direct));
        println!("\nCalls at once, per call (median of {CALL_REPS}):\n");
        println!(
            "| calls | `Promise.all` in a script (whole script ÷ calls) | as many direct calls at once (÷ calls) |"
        );
        println!("| ---: | ---: | ---: |");
        for (calls, scripted, plain) in &o.parallel {
            println!("| {calls} | {} | {} |", ms(*scripted), ms(*plain));
        }
    }

    println!("\n## The tasks' answers and scripts\n");
    for (i, o) in outcomes.iter().enumerate() {
        println!("{}. {}: {}. Answer: `{}`\n", i + 1, o.api, o.title, o.answer);
        println!("   ```js\n{}\n   ```\n", o.script.lines().map(|l| format!("   {l}")).collect::<Vec<_>>().join("\n"));
    }
}
