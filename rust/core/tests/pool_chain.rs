//! Several attack pools' resolutions looked up in turn (`pool_chain.rs`),
//! held to the exact evaluator: every number's mean within five standard
//! errors, and its distribution by a chi-square goodness-of-fit test, on
//! Plans of several weapon profiles into several groups (the three speed
//! references split into two profiles and a CHARACTER group allocated last;
//! damage dice with Feel No Pain; mortal wounds held until every pool is
//! resolved, with and without dice). The fast path trial by trial and die by die stay selectable,
//! and the lookups give them the same distribution.

use mathhammer_core::exact::evaluate;
use mathhammer_core::{simulate, Path, Plan, Program, RunOptions, Runner, Tally};

/// The speed references S1, S2 and S3 with two weapon profiles and a
/// CHARACTER group, then two profiles with D3 and D3+1 damage into models
/// with Feel No Pain, then three profiles, one inflicting mortal wounds
/// that do not spill after its damage, then mortal wounds that spill, held
/// until every pool is resolved, into models with Feel No Pain against
/// mortal wounds only (the held harm rolls dice, the pools do not).
const PLANS: &str = include_str!("data/pool-chain-plans.jsonl");

fn programs() -> Vec<Program> {
    PLANS
        .lines()
        .map(|line| Program::new(Plan::from_json(line).expect("valid plan")).expect("program"))
        .collect()
}

fn run(program: &Program, path: Path, trials: u64, seed: u64) -> Tally {
    simulate(
        program,
        RunOptions {
            trials,
            seed,
            threads: 2,
            path,
        },
        |_, _| Ok(()),
    )
    .unwrap()
}

/// The chi-square statistic of `hist` (of `trials` trials) against the
/// probabilities `pmf`, bins pooled until each expects 20 trials, with its
/// bound: the 1 - 1e-6 quantile (Wilson-Hilferty). A value of probability 0
/// must never be seen.
fn chi_square(hist: &[u64], pmf: &[f64], trials: u64) -> (f64, f64) {
    let n = trials as f64;
    let len = hist.len().max(pmf.len());
    let (mut chi2, mut bins, mut seen, mut want) = (0.0, 0i32, 0.0, 0.0);
    for v in 0..len {
        let p = pmf.get(v).copied().unwrap_or(0.0);
        let h = hist.get(v).copied().unwrap_or(0) as f64;
        assert!(p > 0.0 || h == 0.0, "value {v} of chance 0 seen {h} times");
        seen += h;
        want += n * p;
        if want >= 20.0 || v == len - 1 {
            if want > 0.0 {
                chi2 += (seen - want).powi(2) / want;
                bins += 1;
            }
            seen = 0.0;
            want = 0.0;
        }
    }
    (chi2, bound(bins))
}

/// The 1 - 1e-6 quantile (Wilson-Hilferty) of a chi-square test over
/// `bins` bins.
fn bound(bins: i32) -> f64 {
    let k = f64::from((bins - 1).max(1));
    let z = 4.753;
    k * (1.0 - 2.0 / (9.0 * k) + z * (2.0 / (9.0 * k)).sqrt()).powi(3)
}

/// The two-sample chi-square statistic of two histograms of as many trials,
/// bins pooled until each holds 50 trials, with its bound.
fn two_sample(a: &[u64], b: &[u64]) -> (f64, f64) {
    let len = a.len().max(b.len());
    let get = |h: &[u64], v: usize| h.get(v).copied().unwrap_or(0) as f64;
    let (mut chi2, mut bins, mut ca, mut cb) = (0.0, 0i32, 0.0, 0.0);
    for v in 0..len {
        ca += get(a, v);
        cb += get(b, v);
        if ca + cb >= 50.0 || v == len - 1 {
            if ca + cb > 0.0 {
                chi2 += (ca - cb).powi(2) / (ca + cb);
                bins += 1;
            }
            ca = 0.0;
            cb = 0.0;
        }
    }
    (chi2, bound(bins))
}

#[test]
fn every_plan_here_chains_its_pools() {
    for (i, program) in programs().iter().enumerate() {
        assert!(
            Runner::new(program, Path::Auto).chains_pools(),
            "plan {i} looks its pools up in turn"
        );
        assert!(!Runner::new(program, Path::PerTrial).chains_pools());
        assert!(!Runner::new(program, Path::DieByDie).is_sampled());
    }
}

#[test]
fn chained_pools_draw_the_exact_distribution() {
    let trials = 400_000;
    for (i, program) in programs().iter().enumerate() {
        let exact = evaluate(program).unwrap();
        let mc = run(program, Path::Auto, trials, 5);
        assert_eq!(mc.trials, trials);
        let names = program.numbers();
        // The exact evaluator gives some numbers' means only (a sequence's
        // share of the wounds): those are also held to the fast path trial
        // by trial, distribution for distribution.
        let per_trial = run(program, Path::PerTrial, trials, 6);
        for (j, name) in names.iter().enumerate() {
            let pmf = &exact.pmfs[j];
            if pmf.is_empty() {
                let mean = exact.means[j].expect("a mean where no distribution");
                let se = mc.sd(j) / (trials as f64).sqrt();
                assert!(
                    (mc.mean(j) - mean).abs() < 5.0 * se.max(1e-12),
                    "plan {i}, {name}: mean {} vs exact {mean}",
                    mc.mean(j)
                );
                let (chi2, bound) = two_sample(&mc.hist[j], &per_trial.hist[j]);
                assert!(
                    chi2 < bound,
                    "plan {i}, {name}: chi-square {chi2:.1} against trial by trial exceeds {bound:.1}"
                );
                continue;
            }
            let mean: f64 = pmf.iter().enumerate().map(|(v, p)| v as f64 * p).sum();
            let var: f64 = pmf
                .iter()
                .enumerate()
                .map(|(v, p)| (v as f64 - mean).powi(2) * p)
                .sum();
            let se = (var / trials as f64).sqrt().max(1e-12);
            assert!(
                (mc.mean(j) - mean).abs() < 5.0 * se,
                "plan {i}, {name}: mean {} vs exact {mean}",
                mc.mean(j)
            );
            let (chi2, bound) = chi_square(&mc.hist[j], pmf, trials);
            assert!(
                chi2 < bound,
                "plan {i}, {name}: chi-square {chi2:.1} exceeds {bound:.1}"
            );
        }
    }
}

#[test]
fn a_seed_gives_the_same_tally_on_any_number_of_threads() {
    let program = &programs()[1];
    let tally = |threads| {
        simulate(
            program,
            RunOptions {
                trials: 100_000,
                seed: 9,
                threads,
                path: Path::Auto,
            },
            |_, _| Ok(()),
        )
        .unwrap()
    };
    assert_eq!(tally(1), tally(3));
}

#[test]
fn the_slower_paths_still_run_these_plans() {
    for program in programs().iter().take(2) {
        let exact = evaluate(program).unwrap();
        for path in [Path::PerTrial, Path::DieByDie] {
            let trials = 40_000;
            let mc = run(program, path, trials, 7);
            for (j, pmf) in exact.pmfs.iter().enumerate().filter(|(_, p)| !p.is_empty()) {
                let (chi2, bound) = chi_square(&mc.hist[j], pmf, trials);
                assert!(chi2 < bound, "{path:?}, number {j}: {chi2:.1} > {bound:.1}");
            }
        }
    }
}
