//! `trainer replay`: JSON lines in, JSON lines out. A bad line gets an
//! error line naming the line and the reason, and the next line is still
//! read (lines are read as `trainer act` reads them: [`read_line`]).

use std::io::{BufRead, Write};

use anyhow::Context;
use euchre_bots::json_lines::read_line;
use euchre_game::engine::replay::{HandRecord, ReplayError, replay};
use serde_json::{Value, json};

/// The longest hand record read: a hand is a few hundred bytes.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// One answer a line, a bad line (empty, not UTF-8, overlong, not a hand)
/// included; reading goes on after it.
pub fn run(mut input: impl BufRead, mut output: impl Write) -> anyhow::Result<()> {
    let mut number = 0;
    while let Some(line) =
        read_line(&mut input, MAX_LINE_BYTES).context("cannot read standard input")?
    {
        number += 1;
        let answer = match line.into_request(MAX_LINE_BYTES) {
            Ok(text) => replay_line(number, &text),
            Err(problem) => json!({ "line": number, "error": problem }),
        };
        writeln!(output, "{answer}").context("cannot write standard output")?;
    }
    output.flush().context("cannot write standard output")
}

fn replay_line(line_number: usize, line: &str) -> Value {
    let record: HandRecord = match serde_json::from_str(line) {
        Ok(record) => record,
        Err(error) => {
            return json!({ "line": line_number, "error": format!("malformed hand record: {error}") });
        }
    };
    match replay(&record) {
        Ok(result) => {
            let mut value = serde_json::to_value(result).unwrap_or(Value::Null);
            if let Value::Object(map) = &mut value {
                map.insert("line".into(), json!(line_number));
            }
            value
        }
        Err(ReplayError::Action {
            position,
            text,
            reason,
            steps,
        }) => json!({
            "line": line_number,
            "error": format!("action {position} ('{text}'): {reason}"),
            "position": position,
            "steps": steps,
        }),
        Err(error) => json!({ "line": line_number, "error": error.to_string() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use euchre_game::engine::state::GameState;

    fn run_lines(input: &str) -> Vec<Value> {
        let mut output = Vec::new();
        run(input.as_bytes(), &mut output).unwrap();
        String::from_utf8(output)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    const DEAL: &str = r#""dealer":"N","hands":{"N":["Jh","Ah","Kh","9c","Tc"],"E":["Jd","Qh","9s","Ts","Qc"],"S":["Th","9h","Ac","Kc","Js"],"W":["Ad","Kd","Qd","As","Ks"]},"upcard":"Qs""#;

    /// The first legal action at every step, from the library itself.
    fn first_legal_line() -> Vec<String> {
        let record: HandRecord = serde_json::from_str(&format!("{{{DEAL}}}")).unwrap();
        let mut state = GameState::new(record.deal().unwrap(), record.rules());
        let mut actions = Vec::new();
        while !state.is_finished() {
            let action = state.legal_actions()[0];
            actions.push(action.to_string());
            state.apply(action);
        }
        actions
    }

    #[test]
    fn a_complete_hand_reports_points_and_tricks() {
        let actions = first_legal_line();
        let lines = run_lines(&format!("{{{DEAL},\"actions\":{}}}\n", json!(actions)));
        assert_eq!(lines.len(), 1);
        let answer = &lines[0];
        assert_eq!(answer["complete"], true, "{answer}");
        assert_eq!(answer["steps"].as_array().unwrap().len(), actions.len());
        assert_eq!(answer["steps"][0]["seat"], "E");
        assert_eq!(
            answer["steps"][0]["legal"],
            json!(["pass", "order", "order alone"])
        );
        let ns = answer["tricks"]["NS"].as_u64().unwrap();
        let ew = answer["tricks"]["EW"].as_u64().unwrap();
        assert_eq!(ns + ew, 5);
        let points = (
            answer["points"]["NS"].as_u64().unwrap(),
            answer["points"]["EW"].as_u64().unwrap(),
        );
        assert!(points.0 == 0 || points.1 == 0);
        assert!([1, 2, 4].contains(&(points.0 + points.1)), "{points:?}");
    }

    #[test]
    fn bad_lines_get_errors_and_the_next_line_still_runs() {
        let input = format!(
            "{{{DEAL},\"actions\":[\"pass\",\"play Jh\"]}}\nnot json\n{{{DEAL},\"actions\":[\"order\"]}}\n{{\"dealer\":\"N\",\"hands\":{{}},\"upcard\":\"Qs\"}}\n{{{DEAL},\"actions\":[\"fold\"]}}\n"
        );
        let lines = run_lines(&input);
        assert_eq!(lines.len(), 5);
        assert_eq!(lines[0]["line"], 1);
        assert_eq!(lines[0]["position"], 2);
        let reason = lines[0]["error"].as_str().unwrap();
        assert!(
            reason.contains("play Jh") && reason.contains("not legal"),
            "{reason}"
        );
        assert_eq!(lines[0]["steps"].as_array().unwrap().len(), 1);
        assert!(lines[1]["error"].as_str().unwrap().contains("malformed"));
        assert_eq!(lines[2]["complete"], false);
        assert_eq!(lines[2]["next_to_act"], "N");
        assert!(
            lines[3]["error"]
                .as_str()
                .unwrap()
                .contains("N, E, S and W")
        );
        assert!(
            lines[4]["error"]
                .as_str()
                .unwrap()
                .contains("not an action")
        );
    }
}
