//! The pure middle of the pipeline, shared by the action, `run`, `render` and `demo`:
//! adapters -> consensus -> synthesis -> gate, giving one `Outcome`.

use std::collections::{BTreeMap, BTreeSet};

use crate::adapters::{self, BotSelection, ExtractOptions};
use crate::api::PrSnapshot;
use crate::consensus::{self, ConsensusOptions, Constraints, Matching, Model, Verdict};
use crate::gate;
use crate::gate::RequiredGroup;
use crate::identity::{self, IdentityInput};
use crate::judge::memory::Memory;
use crate::judge::{self, plan, Answer, JudgeRun};
use crate::model::{
    Coverage, FailOn, NormalizedFinding, Outcome, Severity, SourceState, SourceStatus,
};
use crate::synthesis::{self, SynthesisOptions};

/// Findings that come from outside the PR's comments: a SARIF file, a findings file.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtraSource {
    /// Status to report for it (its `bot` is the source name).
    pub status: SourceStatus,
    pub findings: Vec<NormalizedFinding>,
    /// An analyser's results (SARIF): they count as tool-verified in synthesis.
    pub tool_verified: bool,
}

impl ExtraSource {
    /// A source that was read successfully.
    pub fn ok(bot: impl Into<String>, findings: Vec<NormalizedFinding>) -> Self {
        let status = SourceStatus {
            bot: bot.into(),
            status: SourceState::Ok,
            coverage: Coverage::Reviewed,
            coverage_signal: "input file".to_owned(),
            findings: findings.len(),
            skipped: 0,
            notes: Vec::new(),
        };
        ExtraSource {
            status,
            findings,
            tool_verified: false,
        }
    }

    /// A source that could not be read at all: listed, nothing taken from it.
    pub fn malformed(bot: impl Into<String>, reason: impl Into<String>) -> Self {
        let status = SourceStatus {
            bot: bot.into(),
            status: SourceState::Malformed,
            coverage: Coverage::Absent,
            coverage_signal: String::new(),
            findings: 0,
            skipped: 0,
            notes: vec![reason.into()],
        };
        ExtraSource {
            status,
            findings: Vec::new(),
            tool_verified: false,
        }
    }
}

/// Every knob of the pure pipeline.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AnalysisOptions {
    pub extract: ExtractOptions,
    /// `bots_ran: None` derives the denominator from the sources that ran.
    pub consensus: ConsensusOptions,
    pub synthesis: SynthesisOptions,
    pub fail_on: FailOn,
    /// `fail-on-severity`; `None`: off.
    pub fail_on_severity: Option<Severity>,
    /// `required-bots`.
    pub required: Vec<RequiredGroup>,
    /// The last run's state, the commenters' permissions and today (from the edge).
    pub identity: IdentityInput,
    /// Treat findings the bots mark pre-existing (not introduced by the PR) like any other:
    /// they join the agreement and may gate. Off by default: they are set apart.
    pub include_pre_existing: bool,
    /// The model judge: its settings and what it answered this run.
    pub judge: JudgeOptions,
}

/// The judge's part of a run: its settings (off by default) and what the edge got from the
/// endpoint or a recorded answers file this run. Remembered verdicts come from the last
/// run's state block (`identity.prior`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JudgeOptions {
    pub settings: judge::Settings,
    pub given: Given,
}

/// Verdicts given this run, and how asking went.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Given {
    pub answers: Vec<Answer>,
    /// Pairs sent to the endpoint.
    pub asked: usize,
    /// Answer parts left out.
    pub ignored: usize,
    /// Every question was answered or is remembered: a rerun at this head asks nothing.
    pub finished: bool,
    /// What went wrong (our own text).
    pub note: Option<String>,
    /// Who answered, when not the configured model (recorded answers name their reader).
    pub model: Option<String>,
}

impl Given {
    /// Recorded verdicts replayed: nothing asked, everything answered that was recorded.
    pub fn replayed(answers: Vec<Answer>) -> Given {
        let mut models: Vec<&str> = answers.iter().map(|a| a.model.as_str()).collect();
        models.sort_unstable();
        models.dedup();
        let model = (!models.is_empty()).then(|| models.join(", "));
        Given {
            answers,
            finished: true,
            model,
            ..Given::default()
        }
    }
}

impl From<judge::client::Asked> for Given {
    fn from(asked: judge::client::Asked) -> Given {
        Given {
            answers: asked.answers,
            asked: asked.asked,
            ignored: asked.ignored,
            finished: asked.finished,
            note: asked.note,
            model: None,
        }
    }
}

/// Run adapters (when there is a PR snapshot), add extra sources, then the engine and gate.
/// `bots` is resolved on the snapshot (`adapters::extract_selected`), so the action and
/// `render` on its saved folder read the same sources.
pub fn analyze(
    snapshot: Option<&PrSnapshot>,
    bots: &BotSelection,
    extra: Vec<ExtraSource>,
    options: &AnalysisOptions,
) -> Outcome {
    prepare(snapshot, bots, extra, options).finish(snapshot, options)
}

/// The findings read and what matching them needs, before the engine runs: what the judge's
/// questions are asked of, and what [`Prepared::finish`] clusters.
pub struct Prepared {
    /// The PR's own findings (pre-existing ones set apart).
    findings: Vec<NormalizedFinding>,
    pre_existing: Vec<NormalizedFinding>,
    statuses: Vec<SourceStatus>,
    unread_bots: Vec<crate::model::UnreadBot>,
    corrections: identity::Corrections,
    own_constraints: Constraints,
    apart_constraints: Constraints,
    consensus_options: ConsensusOptions,
    synthesis_options: SynthesisOptions,
    bots_ran: usize,
}

/// Read every source and the people's corrections.
pub fn prepare(
    snapshot: Option<&PrSnapshot>,
    bots: &BotSelection,
    extra: Vec<ExtraSource>,
    options: &AnalysisOptions,
) -> Prepared {
    let mut findings = Vec::new();
    let mut statuses = Vec::new();
    let mut unread_bots = Vec::new();
    if let Some(snapshot) = snapshot {
        let extraction = adapters::extract_selected(snapshot, bots, &options.extract);
        findings.extend(extraction.findings);
        statuses.extend(extraction.sources);
        unread_bots = adapters::unread_bots(snapshot, &bots.read_sources());
    }
    let mut synthesis_options = options.synthesis.clone();
    let mut extra_statuses = Vec::with_capacity(extra.len());
    for source in extra {
        let name = &source.status.bot;
        if source.tool_verified && !synthesis_options.verified_sources.contains(name) {
            synthesis_options.verified_sources.push(name.clone());
        }
        // In input order: a findings file keeps its order (`seed` matching depends on it).
        findings.extend(source.findings);
        extra_statuses.push(source.status);
    }
    statuses.extend(merge_by_name(extra_statuses));

    let ran = statuses.iter().filter(|s| s.coverage.ran()).count();
    synthesis_options.sources_ran = Some(ran);
    let bots_ran = options.consensus.bots_ran.unwrap_or(ran).max(1);
    let consensus_options = ConsensusOptions {
        bots_ran: Some(bots_ran),
        ..options.consensus.clone()
    };
    // `/consensus split` and `same` change the clusters: judged now, on the findings as
    // read, and handed to the matching as pairs to keep apart or put together.
    let corrections = identity::Corrections::judge(
        snapshot,
        &findings,
        &options.identity,
        consensus_options.matching == Matching::Issue,
    );
    let mut constraints = corrections.constraints(&findings);
    constraints
        .apart
        .extend(options.consensus.constraints.apart.iter().copied());
    constraints
        .together
        .extend(options.consensus.constraints.together.iter().copied());
    // Pre-existing findings (not the PR's) are matched among themselves only: they neither
    // add to the agreement on the PR's own findings nor gate, and are shown apart.
    let set_apart: Vec<bool> = findings
        .iter()
        .map(|f| f.pre_existing && !options.include_pre_existing)
        .collect();
    let (own_constraints, apart_constraints) = partition_constraints(&constraints, &set_apart);
    let (pre_existing, findings): (Vec<_>, Vec<_>) = findings
        .into_iter()
        .partition(|f| f.pre_existing && !options.include_pre_existing);
    Prepared {
        findings,
        pre_existing,
        statuses,
        unread_bots,
        corrections,
        own_constraints,
        apart_constraints,
        consensus_options,
        synthesis_options,
        bots_ran,
    }
}

impl Prepared {
    /// Whether the judge has anything to do: it is on, and matching is `issue`.
    fn judging(&self, options: &AnalysisOptions) -> bool {
        options.judge.settings.is_on() && self.consensus_options.matching == Matching::Issue
    }

    /// The pairs inside the judge's band, most consequential first.
    fn candidates(&self, options: &AnalysisOptions) -> Vec<plan::Candidate> {
        plan::candidates(
            &self.findings,
            Model::builtin(),
            options.judge.settings.band(),
            &self.own_constraints,
            self.bots_ran,
        )
    }

    /// The questions to ask the judge now: pairs of the band not remembered from an earlier
    /// run, at most `judge-max-pairs`; none on a rerun at the head where asking finished.
    pub fn judge_questions(
        &self,
        snapshot: Option<&PrSnapshot>,
        options: &AnalysisOptions,
        shape: plan::Shape,
    ) -> Vec<plan::Question> {
        if !self.judging(options) {
            return Vec::new();
        }
        let memory = Memory::of(options.identity.prior.state.as_ref());
        let head = snapshot
            .map(|s| short_head(s.head_sha()))
            .unwrap_or_default();
        if !head.is_empty() && memory.head == head {
            return Vec::new();
        }
        let known: BTreeSet<&str> = memory.records.iter().map(|r| r.pair.as_str()).collect();
        let bodies = bodies(snapshot);
        self.candidates(options)
            .iter()
            .filter(|c| !known.contains(c.id.as_str()))
            .take(options.judge.settings.max_pairs)
            .map(|c| self.question(&bodies, c, shape))
            .collect()
    }

    fn question(
        &self,
        bodies: &BTreeMap<u64, &str>,
        candidate: &plan::Candidate,
        shape: plan::Shape,
    ) -> plan::Question {
        let body_of = |i: usize| {
            let id = self.findings[i].provenance.comment_id?;
            bodies.get(&id).map(|b| (*b).to_owned())
        };
        plan::question(&self.findings, candidate, shape, &body_of)
    }

    /// The verdicts that decide pairs of the band this run (this run's answers over the
    /// remembered ones), the judge's account, and the memory to leave.
    fn judge(
        &self,
        snapshot: Option<&PrSnapshot>,
        options: &AnalysisOptions,
    ) -> (Vec<Verdict>, JudgeRun, Memory) {
        let model = Model::builtin();
        let candidates = self.candidates(options);
        let mut memory = Memory::of(options.identity.prior.state.as_ref());
        let given = &options.judge.given;
        let mut by_id: BTreeMap<&str, &Answer> = BTreeMap::new();
        let remembered = memory.answers();
        for answer in remembered.iter().chain(&given.answers) {
            by_id.insert(answer.id.as_str(), answer);
        }
        let fresh: BTreeSet<&str> = given.answers.iter().map(|a| a.id.as_str()).collect();
        let mut run = JudgeRun {
            model: given
                .model
                .clone()
                .unwrap_or_else(|| options.judge.settings.model.clone()),
            candidates: candidates.len(),
            asked: given.asked,
            ignored: given.ignored,
            note: given.note.clone(),
            ..JudgeRun::default()
        };
        let mut verdicts = Vec::new();
        for candidate in &candidates {
            let Some(answer) = by_id.get(candidate.id.as_str()) else {
                run.unanswered += 1;
                continue;
            };
            if fresh.contains(candidate.id.as_str()) {
                run.answered += 1;
            } else {
                run.remembered += 1;
            }
            let linked = candidate.p >= model.threshold;
            run.joined += usize::from(answer.same && !linked);
            run.kept_apart += usize::from(!answer.same && linked);
            verdicts.push(Verdict {
                a: candidate.a,
                b: candidate.b,
                said: answer.said(),
            });
        }
        memory.remember(&given.answers);
        if given.finished {
            if let Some(snapshot) = snapshot {
                memory.head = short_head(snapshot.head_sha());
            }
        }
        (verdicts, run, memory)
    }

    /// The engine, synthesis, identity and the gate.
    pub fn finish(self, snapshot: Option<&PrSnapshot>, options: &AnalysisOptions) -> Outcome {
        let mut own_constraints = self.own_constraints.clone();
        let mut identity_input = std::borrow::Cow::Borrowed(&options.identity);
        let mut judge_run = None;
        if self.judging(options) {
            let (verdicts, run, memory) = self.judge(snapshot, options);
            own_constraints.judged = verdicts;
            identity_input.to_mut().judged = Some(memory);
            judge_run = Some(run);
        }
        let Prepared {
            findings,
            pre_existing,
            statuses,
            unread_bots,
            corrections,
            apart_constraints,
            consensus_options,
            synthesis_options,
            bots_ran,
            ..
        } = self;
        // `findings` is not needed afterwards: the clusters take the findings, no copies.
        let clusters = consensus::consensus_owned(
            findings,
            &ConsensusOptions {
                constraints: own_constraints,
                ..consensus_options.clone()
            },
        );
        let mut synthesized = synthesis::synthesize(clusters, &synthesis_options);
        if !pre_existing.is_empty() {
            let apart = consensus::consensus_owned(
                pre_existing,
                &ConsensusOptions {
                    constraints: apart_constraints,
                    ..consensus_options
                },
            );
            synthesized.extend(synthesis::set_apart(apart, &synthesis_options));
        }
        // Acknowledgements are known before the gate: an acknowledged finding fails no rule.
        let identity = identity::track(
            &mut synthesized,
            &statuses,
            snapshot,
            &identity_input,
            &corrections,
        );
        let not_reviewed = gate::not_reviewed(&statuses, &options.required);
        let gate = gate::decide_all(
            &synthesized,
            options.fail_on,
            options.fail_on_severity,
            &not_reviewed,
        );

        Outcome {
            repository: snapshot.map(|s| s.repository.clone()).unwrap_or_default(),
            pull_request: snapshot.map(|s| s.pull.number),
            head_sha: snapshot
                .map(|s| s.head_sha().to_owned())
                .filter(|sha| !sha.is_empty()),
            bots_ran,
            sources: statuses,
            findings: synthesized,
            fail_on: options.fail_on,
            fail_on_severity: options.fail_on_severity,
            required_bots: options.required.iter().map(RequiredGroup::label).collect(),
            not_reviewed,
            unread_bots,
            gate,
            identity,
            judge: judge_run,
        }
    }
}

/// Each review comment's body, by id: what the judge reads of an inline finding.
fn bodies(snapshot: Option<&PrSnapshot>) -> BTreeMap<u64, &str> {
    snapshot
        .map(|s| {
            s.review_comments
                .iter()
                .map(|c| (c.id, c.body.as_str()))
                .collect()
        })
        .unwrap_or_default()
}

/// A head commit as the state block keeps it: 10 hex.
fn short_head(sha: &str) -> String {
    sha.chars().take(10).collect()
}

/// `constraints` (indices into every finding) as two sets of indices: into the findings
/// matched as the PR's (`set_apart[i]` false) and into those set apart, in order. A pair
/// across the two is dropped: they are never matched together anyway.
fn partition_constraints(
    constraints: &Constraints,
    set_apart: &[bool],
) -> (Constraints, Constraints) {
    let mut local = Vec::with_capacity(set_apart.len());
    let (mut own, mut apart) = (0, 0);
    for &a in set_apart {
        let counter = if a { &mut apart } else { &mut own };
        local.push(*counter);
        *counter += 1;
    }
    let mut out = (Constraints::default(), Constraints::default());
    let split = |pairs: &[(usize, usize)], own: &mut Vec<_>, apart: &mut Vec<_>| {
        for &(x, y) in pairs {
            match (set_apart.get(x), set_apart.get(y)) {
                (Some(false), Some(false)) => own.push((local[x], local[y])),
                (Some(true), Some(true)) => apart.push((local[x], local[y])),
                _ => {}
            }
        }
    };
    split(&constraints.apart, &mut out.0.apart, &mut out.1.apart);
    split(
        &constraints.together,
        &mut out.0.together,
        &mut out.1.together,
    );
    out
}

/// The extra sources that are code scanning already (SARIF files): the SARIF output leaves
/// out what only they found, as it leaves out `gh-advanced-security`'s alerts.
pub fn code_scanning_sources(extra: &[ExtraSource]) -> Vec<String> {
    let mut names: Vec<String> = extra
        .iter()
        .filter(|s| s.tool_verified)
        .map(|s| s.status.bot.clone())
        .collect();
    names.sort();
    names.dedup();
    names
}

/// One status per name: CodeQL writes a SARIF file per language and a tool may be given
/// several findings files, but a bot counts once in the agreement denominator.
fn merge_by_name(statuses: Vec<SourceStatus>) -> Vec<SourceStatus> {
    let mut merged: Vec<SourceStatus> = Vec::with_capacity(statuses.len());
    for from in statuses {
        match merged.iter_mut().find(|m| m.bot == from.bot) {
            None => merged.push(from),
            Some(status) => {
                // Readable if any part was; its coverage is the best any part had.
                status.status = match (status.status, from.status) {
                    (SourceState::Ok, _) | (_, SourceState::Ok) => SourceState::Ok,
                    (SourceState::Malformed, _) | (_, SourceState::Malformed) => {
                        SourceState::Malformed
                    }
                    _ => SourceState::Missing,
                };
                if from.coverage.ran() && !status.coverage.ran() {
                    status.coverage = from.coverage;
                }
                status.findings += from.findings;
                status.skipped += from.skipped;
                status.notes.extend(from.notes);
            }
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Gate, Severity, SourceState};

    fn finding(bot: &str, id: &str, severity: Severity, category: &str) -> NormalizedFinding {
        let mut f = NormalizedFinding::new(bot, id, severity, category, "Unchecked input");
        f.evidence.file = "src/app.rs".into();
        f.evidence.line = Some(10);
        f.detail = "The input reaches the query unchecked.".into();
        f
    }

    #[test]
    fn sources_of_one_name_count_once_and_sarif_is_tool_verified() {
        // CodeQL's per-language SARIF files: two sources named `codeql`.
        let mut python = ExtraSource::ok(
            "codeql",
            vec![finding("codeql", "a", Severity::High, "security")],
        );
        python.tool_verified = true;
        let mut js = ExtraSource::ok("codeql", Vec::new());
        js.tool_verified = true;
        let reviewer = ExtraSource::ok(
            "reviewer",
            vec![finding("reviewer", "b", Severity::High, "security")],
        );
        let outcome = analyze(
            None,
            &BotSelection::default(),
            vec![python, js, reviewer],
            &AnalysisOptions::default(),
        );

        assert_eq!(outcome.bots_ran, 2, "codeql counts once");
        let names: Vec<&str> = outcome.sources.iter().map(|s| s.bot.as_str()).collect();
        assert_eq!(names, ["codeql", "reviewer"]);
        assert_eq!(outcome.sources[0].status, SourceState::Ok);
        let merged = &outcome.findings[0];
        assert_eq!(merged.consensus.detected_by, ["codeql", "reviewer"]);
        assert_eq!(
            merged.verification_score, 3,
            "two sources, one tool-verified"
        );
    }

    #[test]
    fn one_source_with_findings_among_several_that_ran_is_still_de_noised() {
        // Three sources ran; only one found anything, a style nit. The seed's shortcut is
        // for a single review source, so the nit is suppressed as covered by linters.
        let nit = finding("alpha", "n", Severity::Low, "style");
        let extra = vec![
            ExtraSource::ok("alpha", vec![nit]),
            ExtraSource::ok("beta", Vec::new()),
            ExtraSource::ok("gamma", Vec::new()),
        ];
        let outcome = analyze(
            None,
            &BotSelection::default(),
            extra,
            &AnalysisOptions::default(),
        );
        assert_eq!(outcome.findings.len(), 1);
        assert!(outcome.findings[0].suppressed);

        // Alone, the same source takes the shortcut: nothing is suppressed.
        let alone = vec![ExtraSource::ok(
            "alpha",
            vec![finding("alpha", "n", Severity::Low, "style")],
        )];
        let outcome = analyze(
            None,
            &BotSelection::default(),
            alone,
            &AnalysisOptions::default(),
        );
        assert!(!outcome.findings[0].suppressed);
    }

    /// Corrections index every finding; the engine is given the PR's and the pre-existing
    /// ones apart, so each pair goes to its side, renumbered, and a pair across is dropped.
    #[test]
    fn constraints_follow_the_findings_to_their_side() {
        let constraints = Constraints {
            apart: vec![(0, 2), (1, 3), (0, 1)],
            together: vec![(2, 4), (3, 1), (9, 0)],
            judged: Vec::new(),
        };
        //                 0      1     2      3     4
        let set_apart = [false, true, false, true, false];
        let (own, apart) = partition_constraints(&constraints, &set_apart);
        // The PR's findings 0, 2, 4 are 0, 1, 2; the pre-existing 1, 3 are 0, 1.
        assert_eq!(own.apart, vec![(0, 1)]);
        assert_eq!(own.together, vec![(1, 2)]);
        assert_eq!(apart.apart, vec![(0, 1)]);
        assert_eq!(apart.together, vec![(1, 0)]);
    }

    /// A finding its bot marks pre-existing is set apart: matched only with other
    /// pre-existing findings, never adding to the PR's own findings' agreement, never gating;
    /// `include_pre_existing` treats it like any other.
    #[test]
    fn pre_existing_findings_are_set_apart_from_the_gate() {
        let mut old = finding("alpha", "p", Severity::Critical, "security");
        old.pre_existing = true;
        let new = finding("beta", "n", Severity::High, "security");
        let extra = || {
            vec![
                ExtraSource::ok("alpha", vec![old.clone()]),
                ExtraSource::ok("beta", vec![new.clone()]),
            ]
        };
        let options = AnalysisOptions {
            fail_on: FailOn::Unverified,
            fail_on_severity: Some(Severity::Critical),
            ..AnalysisOptions::default()
        };
        let outcome = analyze(None, &BotSelection::default(), extra(), &options);
        assert_eq!(outcome.findings.len(), 2, "the same lines, yet not merged");
        let surfaced: Vec<_> = outcome.surfaced().collect();
        assert_eq!(surfaced.len(), 1);
        assert_eq!(surfaced[0].consensus.detected_by, ["beta"]);
        assert_eq!(
            surfaced[0].consensus.agreement_ratio, 0.5,
            "one of two bots"
        );
        let apart: Vec<_> = outcome.pre_existing().collect();
        assert_eq!(apart.len(), 1);
        assert!(apart[0].suppressed && apart[0].is_pre_existing());
        assert_eq!(
            outcome.suppressed().count(),
            0,
            "counted apart, not as suppressed"
        );
        // The gate fails on beta's finding (unverified), never on alpha's critical one.
        assert_eq!(outcome.gate, Gate::Fail);
        assert!(gate::severity_blocking(&outcome.findings, Some(Severity::Critical)).is_empty());
        let only_old = analyze(
            None,
            &BotSelection::default(),
            vec![ExtraSource::ok("alpha", vec![old.clone()])],
            &options,
        );
        assert_eq!(
            only_old.gate,
            Gate::Pass,
            "a pre-existing critical gates nothing"
        );

        let included = AnalysisOptions {
            include_pre_existing: true,
            ..options
        };
        let outcome = analyze(None, &BotSelection::default(), extra(), &included);
        assert_eq!(outcome.findings.len(), 1, "merged like any other");
        assert_eq!(outcome.pre_existing().count(), 0);
        assert_eq!(outcome.gate, Gate::Fail);
    }
}
