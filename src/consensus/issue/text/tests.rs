use super::*;
use crate::model::Severity;

fn pieces(text: &str) -> Vec<String> {
    split_code(text)
        .map(|p| match p {
            Piece::Code(c) => format!("[{c}]"),
            Piece::Prose(p) => p.to_owned(),
        })
        .collect()
}

#[test]
fn code_spans_split_from_prose() {
    assert_eq!(pieces("use `a_b` here"), ["use ", "[a_b]", " here"]);
    assert_eq!(pieces("unclosed `tick"), ["unclosed `", "tick"]);
    assert_eq!(pieces("`x`"), ["", "[x]"]);
}

#[test]
fn identifiers_files_and_priorities() {
    for word in ["close_rate", "detectAgent", "MD032", "get_desired_shims"] {
        assert!(looks_like_identifier(word), "{word}");
    }
    for word in ["race", "Zeta", "P1", "p2"] {
        assert!(!looks_like_identifier(word), "{word}");
    }
    assert!(is_file_name("grok-build.ts") && is_file_name("MEMORY.md"));
    for text in ["e.g", "process.cwd", "3.14", "path.", "a b.ts"] {
        assert!(!is_file_name(text), "{text}");
    }
    let tokens: Vec<&str> = code_tokens("process.env.CLAUDE_PROJECT_DIR ?? --files").collect();
    assert_eq!(tokens, ["process.env.CLAUDE_PROJECT_DIR", "--files"]);
}

#[test]
fn cjk_text_is_matched_by_character_pairs() {
    assert_eq!(cjk_pieces("背景画像"), ["背景", "景画", "画像"]);
    assert_eq!(cjk_pieces("CSS変数を"), ["CSS", "変数", "数を"]);
    assert_eq!(cjk_pieces("a字b"), ["a", "字", "b"]);
    // Two comments in Japanese about one gradient share terms; an unrelated one does not.
    let gradient = finding("グラデーションの始点と終点が同じ色です", "");
    let same = finding("同じ色のグラデーションは不要です", "");
    let other = finding("テストが不足しています", "");
    let corpus = Corpus::build(&[gradient, same, other]);
    assert!(corpus.similarity(0, 1)[Channel::Word as usize] > 0.2);
    assert!(corpus.similarity(0, 2)[Channel::Word as usize] < 0.05);
}

#[test]
fn stop_words_are_sorted_for_binary_search() {
    assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
}

fn finding(title: &str, detail: &str) -> NormalizedFinding {
    let mut f = NormalizedFinding::new("bot", "", Severity::Medium, "bug", title);
    f.detail = detail.to_owned();
    f
}

#[test]
fn channels_measure_what_two_findings_share_apart() {
    let counted = finding("Count is off", "`items.len()` misses the last item.");
    let same_code = finding("Wrong total", "The total uses `items.len()` and drops one.");
    let unrelated = finding("Rename `compute_fee`", "The name hides what it does.");
    let corpus = Corpus::build(&[counted, same_code, unrelated]);
    let same = corpus.similarity(0, 1);
    assert!(same[Channel::Code as usize] > 0.5, "{same:?}");
    assert_eq!(
        same[Channel::Title as usize],
        0.0,
        "no title word in common"
    );
    let other = corpus.similarity(0, 2);
    assert_eq!(other, [0.0; CHANNELS]);
}

#[test]
fn title_words_are_their_own_channel_and_a_rule_id_names_a_class() {
    let mut rule = finding("SQL query built from user-controlled sources", "");
    rule.evidence.symbol = "py/sql-injection".into();
    let prose = finding(
        "Unchecked value",
        "The lookup interpolates `order_ref`: SQL injection.",
    );
    let corpus = Corpus::build(&[rule, prose]);
    let same = corpus.similarity(0, 1);
    assert!(same[Channel::Class as usize] > 0.3, "{same:?}");
    assert!(corpus
        .shared_terms(0, 1)
        .iter()
        .any(|t| t.contains("CWE-89")));
}

#[test]
fn boilerplate_and_negation() {
    assert_eq!(
        without_boilerplate("Bad. Useful? React with 👍 / 👎."),
        "Bad.  "
    );
    assert!(is_negated("The lock is never released"));
    assert!(is_negated("Missing null check"));
    assert!(!is_negated("Redundant null check"));
}
