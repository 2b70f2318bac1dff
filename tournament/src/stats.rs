//! Honest statistics for comparing agents.

/// Wilson score interval for a proportion at 95% (z = 1.96). Better than the normal
/// approximation near 0 and 1 and for small samples.
pub fn wilson(successes: u64, n: u64) -> (f64, f64) {
    wilson_score(successes as f64, n)
}

/// [`wilson`] for `n` independent scores in [0, 1] summing to `score` (a deal's mean over its
/// seat rotations, a draw's half point). The Bernoulli variance it assumes, p(1 − p), is the
/// largest any score in [0, 1] with mean p can have (Bhatia–Davis), so for such scores the
/// interval is at least as wide as it needs to be: conservative, never overconfident.
pub fn wilson_score(score: f64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = 1.959_963_984_540_054_f64;
    let n_f = n as f64;
    let p = (score / n_f).clamp(0.0, 1.0);
    let denom = 1.0 + z * z / n_f;
    let centre = (p + z * z / (2.0 * n_f)) / denom;
    let half = z * ((p * (1.0 - p) / n_f) + z * z / (4.0 * n_f * n_f)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// Elo difference implied by a score rate (wins + draws/2 over games), clamped so a clean
/// sweep gives a large finite number instead of infinity.
pub fn elo_from_score(score: f64) -> f64 {
    let s = score.clamp(0.001, 0.999);
    400.0 * (s / (1.0 - s)).log10()
}

/// Bradley–Terry ratings (Elo scale, mean 0) from a matrix of pairwise scores:
/// `score[i][j]` = points i took from j (win 1, draw 1/2), `games[i][j]` = games between them.
/// Fitted by the standard minorisation–maximisation iteration.
pub fn bradley_terry(score: &[Vec<f64>], games: &[Vec<f64>]) -> Vec<f64> {
    let n = score.len();
    let mut r = vec![1.0f64; n];
    for _ in 0..500 {
        let mut next = r.clone();
        for i in 0..n {
            // A small prior (one draw against a virtual equal) keeps sweeps finite.
            let w: f64 = score[i].iter().sum::<f64>() + 0.5;
            let mut d = 1.0 / (r[i] + 1.0);
            for j in 0..n {
                if i != j && games[i][j] > 0.0 {
                    d += games[i][j] / (r[i] + r[j]);
                }
            }
            next[i] = w / d;
        }
        let g = next.iter().map(|x| x.ln()).sum::<f64>() / n as f64;
        for x in next.iter_mut() {
            *x = (x.ln() - g).exp();
        }
        r = next;
    }
    r.iter().map(|x| 400.0 * x.log10()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_known_values() {
        // 50/100: (0.404, 0.596) is the textbook Wilson interval.
        let (lo, hi) = wilson(50, 100);
        assert!((lo - 0.4038).abs() < 1e-3 && (hi - 0.5962).abs() < 1e-3);
        let (lo, hi) = wilson(0, 10);
        assert_eq!(lo, 0.0);
        assert!((hi - 0.2775).abs() < 1e-3);
    }

    #[test]
    fn elo_is_symmetric() {
        assert!(elo_from_score(0.5).abs() < 1e-9);
        assert!((elo_from_score(0.76) + elo_from_score(0.24)).abs() < 1e-9);
        assert!((elo_from_score(0.76) - 200.0).abs() < 2.0);
    }

    #[test]
    fn bradley_terry_orders_players() {
        // A beats B 7-3, B beats C 7-3, A beats C 8-2.
        let s = vec![
            vec![0.0, 7.0, 8.0],
            vec![3.0, 0.0, 7.0],
            vec![2.0, 3.0, 0.0],
        ];
        let g = vec![
            vec![0.0, 10.0, 10.0],
            vec![10.0, 0.0, 10.0],
            vec![10.0, 10.0, 0.0],
        ];
        let r = bradley_terry(&s, &g);
        assert!(r[0] > r[1] && r[1] > r[2]);
        assert!(r.iter().sum::<f64>().abs() < 1e-6);
    }

    /// The fit is the fixed point of the model, not just an ordering: with strengths
    /// `q = 10^(r/400)`, each player's points plus the prior's half point equal `q` times
    /// `1/(q+1)` (the virtual equal) plus `games/(q+q_j)` over real opponents, up to one
    /// common factor (the normalisation to mean 0). Unequal numbers of games, a pair that
    /// never met and a draw-heavy pair make every term of the iteration matter.
    #[test]
    fn bradley_terry_is_the_fixed_point_of_the_model() {
        let s = vec![
            vec![0.0, 9.0, 4.0, 0.0],
            vec![3.0, 0.0, 2.5, 6.0],
            vec![2.0, 3.5, 0.0, 1.0],
            vec![0.0, 4.0, 3.0, 0.0],
        ];
        let g = vec![
            vec![0.0, 12.0, 6.0, 0.0],
            vec![12.0, 0.0, 6.0, 10.0],
            vec![6.0, 6.0, 0.0, 4.0],
            vec![0.0, 10.0, 4.0, 0.0],
        ];
        let r = bradley_terry(&s, &g);
        assert_eq!(r.len(), 4);
        assert!(r.iter().sum::<f64>().abs() < 1e-6, "mean 0: {r:?}");
        let q: Vec<f64> = r.iter().map(|x| 10f64.powf(x / 400.0)).collect();
        let factor = |i: usize| {
            let w = s[i].iter().sum::<f64>() + 0.5;
            let mut d = 1.0 / (q[i] + 1.0);
            for j in 0..4 {
                if j != i {
                    d += g[i][j] / (q[i] + q[j]);
                }
            }
            w / d / q[i]
        };
        let f0 = factor(0);
        for i in 1..4 {
            assert!(
                (factor(i) - f0).abs() < 1e-6 * f0,
                "player {i} is off the fixed point: {r:?}"
            );
        }
    }

    /// Two players: a 7-3 result is a gap of about 139 Elo by the model (the prior's draw
    /// against a virtual equal pulls it in from the 147 of a bare 70%), split evenly.
    #[test]
    fn bradley_terry_two_players_by_hand() {
        let r = bradley_terry(
            &[vec![0.0, 7.0], vec![3.0, 0.0]],
            &[vec![0.0, 10.0], vec![10.0, 0.0]],
        );
        assert!((r[0] + r[1]).abs() < 1e-9, "{r:?}");
        // Fixed point by hand: strengths q and 1/q.
        let q = 10f64.powf(r[0] / 400.0);
        let a = 7.5 / (1.0 / (q + 1.0) + 10.0 / (q + 1.0 / q)) / q;
        let b = 3.5 / (1.0 / (1.0 / q + 1.0) + 10.0 / (q + 1.0 / q)) * q;
        assert!((a - b).abs() < 1e-6 * a, "{r:?}");
        assert!((r[0] - r[1] - 139.1).abs() < 0.1, "{r:?}");
    }
}
