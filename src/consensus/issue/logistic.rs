//! The match model: logistic regression from a pair's evidence to the probability that the
//! two findings name one defect. Its weights are fitted by `cargo run --example
//! fit_matching` on the labelled real PRs and checked in as `data/matching-model.json`; the
//! engine only reads them.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::features::{FEATURES, FEATURE_COUNT};

/// The checked-in model, as the fitting command wrote it.
const BUILTIN: &str = include_str!("../../../data/matching-model.json");

/// Fitted weights: `p = 1 / (1 + exp(-(intercept + Σ weight·feature)))`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Model {
    /// Feature names, in the engine's order (a test checks they are the engine's).
    pub features: Vec<String>,
    pub weights: Vec<f64>,
    pub intercept: f64,
    /// Two findings are linked at this probability or above (chosen with the penalty by
    /// cross-validation inside the training PRs).
    pub threshold: f64,
    /// The L2 penalty the weights were fitted with.
    pub l2: f64,
    /// What the weights were fitted on, for the record (`repositories`, `prs`, `pairs`).
    #[serde(default)]
    pub fitted_on: FittedOn,
}

/// The corpus behind a model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FittedOn {
    pub repositories: usize,
    pub prs: usize,
    pub pairs: usize,
    pub positives: usize,
}

impl Model {
    /// The model shipped with the engine.
    pub fn builtin() -> &'static Model {
        static MODEL: OnceLock<Model> = OnceLock::new();
        MODEL.get_or_init(|| {
            let model: Model = serde_json::from_str(BUILTIN)
                .unwrap_or_else(|e| panic!("data/matching-model.json does not parse: {e}"));
            assert!(
                model
                    .features
                    .iter()
                    .map(String::as_str)
                    .eq(FEATURES.iter().copied()),
                "data/matching-model.json was fitted on other features than the engine computes: \
                 run `cargo run --example fit_matching`"
            );
            model
        })
    }

    /// The log-odds of a match.
    pub fn log_odds(&self, x: &[f64; FEATURE_COUNT]) -> f64 {
        self.intercept + self.weights.iter().zip(x).map(|(w, v)| w * v).sum::<f64>()
    }

    pub fn probability(&self, x: &[f64; FEATURE_COUNT]) -> f64 {
        sigmoid(self.log_odds(x))
    }

    /// Each feature's share of the log-odds, `weight × value`.
    pub fn contributions(&self, x: &[f64; FEATURE_COUNT]) -> [f64; FEATURE_COUNT] {
        let mut out = [0.0; FEATURE_COUNT];
        for (k, (w, v)) in self.weights.iter().zip(x).enumerate() {
            out[k] = w * v;
        }
        out
    }
}

pub fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// Fit a model by Newton's method (iteratively reweighted least squares) with an L2 penalty
/// on the weights (not the intercept). `used[k] == false` fixes feature `k`'s weight at 0
/// (a drop-one ablation). Deterministic: no randomness, no early stop that depends on time.
pub fn fit(rows: &[([f64; FEATURE_COUNT], bool)], l2: f64, used: &[bool; FEATURE_COUNT]) -> Model {
    fit_weighted(rows, &vec![1.0; rows.len()], l2, used)
}

/// [`fit`] with a weight per row (a repository that holds many of the pairs can be kept from
/// deciding the weights alone).
pub fn fit_weighted(
    rows: &[([f64; FEATURE_COUNT], bool)],
    row_weights: &[f64],
    l2: f64,
    used: &[bool; FEATURE_COUNT],
) -> Model {
    // A feature that is zero on every row carries no evidence: its weight stays 0.
    let active: Vec<usize> = (0..FEATURE_COUNT)
        .filter(|&k| used[k] && rows.iter().any(|(x, _)| x[k] != 0.0))
        .collect();
    // Parameters: the intercept, then the active weights.
    let dim = active.len() + 1;
    let mut beta = vec![0.0; dim];
    let design = |x: &[f64; FEATURE_COUNT], j: usize| if j == 0 { 1.0 } else { x[active[j - 1]] };
    for _ in 0..50 {
        let mut gradient = vec![0.0; dim];
        let mut hessian = vec![vec![0.0; dim]; dim];
        let mut row_x = vec![0.0; dim];
        for ((x, label), &w) in rows.iter().zip(row_weights) {
            for (j, value) in row_x.iter_mut().enumerate() {
                *value = design(x, j);
            }
            let z: f64 = beta.iter().zip(&row_x).map(|(b, v)| b * v).sum();
            let p = sigmoid(z);
            let residual = w * (if *label { 1.0 } else { 0.0 } - p);
            let curvature = w * (p * (1.0 - p)).max(1e-9);
            for (i, &xi) in row_x.iter().enumerate() {
                gradient[i] += residual * xi;
                for (cell, &xj) in hessian[i].iter_mut().zip(&row_x).take(i + 1) {
                    *cell += curvature * xi * xj;
                }
            }
        }
        // The lower triangle mirrored; the penalty on every weight but the intercept.
        for i in 0..dim {
            let (upper, lower) = hessian.split_at_mut(i);
            for (row, &value) in upper.iter_mut().zip(&lower[0]) {
                row[i] = value;
            }
            if i > 0 {
                gradient[i] -= l2 * beta[i];
                hessian[i][i] += l2;
            }
        }
        let Some(step) = solve(hessian, gradient) else {
            break;
        };
        let size: f64 = step.iter().map(|s| s.abs()).fold(0.0, f64::max);
        for (b, s) in beta.iter_mut().zip(&step) {
            *b += s;
        }
        if size < 1e-9 {
            break;
        }
    }
    let mut weights = vec![0.0; FEATURE_COUNT];
    for (j, &k) in active.iter().enumerate() {
        weights[k] = beta[j + 1];
    }
    Model {
        features: FEATURES.iter().map(|&f| f.to_owned()).collect(),
        weights,
        intercept: beta[0],
        threshold: 0.5,
        l2,
        fitted_on: FittedOn {
            pairs: rows.len(),
            positives: rows.iter().filter(|(_, label)| *label).count(),
            ..FittedOn::default()
        },
    }
}

/// `a · x = b` by Gaussian elimination with partial pivoting; `None` when singular.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for column in 0..n {
        let pivot =
            (column..n).max_by(|&i, &j| a[i][column].abs().total_cmp(&a[j][column].abs()))?;
        if a[pivot][column].abs() < 1e-12 {
            return None;
        }
        a.swap(column, pivot);
        b.swap(column, pivot);
        let (above, below) = a.split_at_mut(column + 1);
        let pivot_row = &above[column];
        for (offset, row) in below.iter_mut().enumerate() {
            let factor = row[column] / pivot_row[column];
            for (cell, &p) in row[column..].iter_mut().zip(&pivot_row[column..]) {
                *cell -= factor * p;
            }
            b[column + 1 + offset] -= factor * b[column];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let rest: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - rest) / a[row][row];
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(value: f64, label: bool) -> ([f64; FEATURE_COUNT], bool) {
        let mut x = [0.0; FEATURE_COUNT];
        x[0] = value;
        (x, label)
    }

    #[test]
    fn fit_recovers_the_direction_and_calibration_of_a_separating_feature() {
        // Feature 0 is 1 for 9 of 10 positives and 1 of 10 negatives.
        let mut rows = Vec::new();
        for k in 0..10 {
            rows.push(row(if k < 9 { 1.0 } else { 0.0 }, true));
            rows.push(row(if k < 1 { 1.0 } else { 0.0 }, false));
        }
        let model = fit(&rows, 0.0, &[true; FEATURE_COUNT]);
        let mut on = [0.0; FEATURE_COUNT];
        on[0] = 1.0;
        // Unpenalised logistic regression on one binary feature is exactly calibrated.
        assert!((model.probability(&on) - 0.9).abs() < 1e-6, "{model:?}");
        assert!((model.probability(&[0.0; FEATURE_COUNT]) - 0.1).abs() < 1e-6);
        // The unused features (all zero) get no weight.
        assert!(model.weights[1..].iter().all(|w| *w == 0.0));
    }

    #[test]
    fn a_dropped_feature_keeps_weight_zero_and_l2_shrinks() {
        let rows: Vec<_> = (0..20)
            .map(|k| row(f64::from(k % 2), k % 2 == 1 || k == 0))
            .collect();
        let mut used = [true; FEATURE_COUNT];
        used[0] = false;
        let dropped = fit(&rows, 1.0, &used);
        assert_eq!(dropped.weights[0], 0.0);
        let free = fit(&rows, 0.0, &[true; FEATURE_COUNT]);
        let shrunk = fit(&rows, 10.0, &[true; FEATURE_COUNT]);
        assert!(free.weights[0] > shrunk.weights[0] && shrunk.weights[0] > 0.0);
    }

    #[test]
    fn the_builtin_model_is_the_engines() {
        let model = Model::builtin();
        assert_eq!(model.weights.len(), FEATURE_COUNT);
        assert!(model.fitted_on.prs >= 1 && model.fitted_on.pairs > model.fitted_on.positives);
    }
}
