//! Counters and timers of a rewrite run, always on (PyTensor's
//! `print_profile`): for each rewriter how often it was asked, how often
//! its proposal was applied, how often it failed, and the time it took;
//! for each pass its time and whether it changed the graph.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

/// One rewriter's figures.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RewriterStats {
    /// `transform` calls.
    pub calls: u64,
    /// Proposals that were applied.
    pub applied: u64,
    /// Calls that raised, or proposals the graph refused.
    pub failed: u64,
    /// Time in `transform` and in applying its proposals.
    pub time: Duration,
}

impl RewriterStats {
    /// Adds another record of the same rewriter.
    pub fn add(&mut self, other: &RewriterStats) {
        self.calls += other.calls;
        self.applied += other.applied;
        self.failed += other.failed;
        self.time += other.time;
    }
}

/// One graph pass (a phase, a driver).
#[derive(Clone, Debug, PartialEq)]
pub struct PassRecord {
    /// The pass's name.
    pub name: String,
    /// Wall time of the pass.
    pub time: Duration,
    /// Whether it changed the graph.
    pub changed: bool,
    /// Apply nodes in the graph after the pass.
    pub nodes_after: usize,
}

/// The figures of a whole rewrite run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RewriteProfile {
    /// Per rewriter name.
    pub rewriters: BTreeMap<String, RewriterStats>,
    /// Per pass, in the order they ran (nested passes before their parent).
    pub passes: Vec<PassRecord>,
}

impl RewriteProfile {
    /// Adds a rewriter's figures.
    pub fn record(&mut self, name: &str, stats: &RewriterStats) {
        if stats.calls == 0 && stats.failed == 0 {
            return;
        }
        match self.rewriters.get_mut(name) {
            Some(s) => s.add(stats),
            None => {
                self.rewriters.insert(name.to_owned(), *stats);
            }
        }
    }

    /// The rewriters that were applied at least once, most applied first.
    pub fn applied(&self) -> Vec<(&str, &RewriterStats)> {
        let mut out: Vec<(&str, &RewriterStats)> = self
            .rewriters
            .iter()
            .filter(|(_, s)| s.applied > 0)
            .map(|(n, s)| (n.as_str(), s))
            .collect();
        out.sort_by(|a, b| b.1.applied.cmp(&a.1.applied).then(a.0.cmp(b.0)));
        out
    }

    /// A table in the spirit of PyTensor's `print_profile`.
    pub fn summary(&self) -> String {
        let mut s = String::from("Rewrite passes (time, changed, nodes after):\n");
        for p in &self.passes {
            let _ = writeln!(
                s,
                "  {:>9.3} ms  {}  {:>6}  {}",
                p.time.as_secs_f64() * 1e3,
                if p.changed { "yes" } else { " no" },
                p.nodes_after,
                p.name
            );
        }
        s.push_str("Rewriters (applied / calls, failed, time):\n");
        let mut rows: Vec<(&String, &RewriterStats)> = self.rewriters.iter().collect();
        rows.sort_by(|a, b| b.1.time.cmp(&a.1.time).then(a.0.cmp(b.0)));
        for (name, st) in rows {
            let _ = writeln!(
                s,
                "  {:>6} / {:<7} {:>4}  {:>9.3} ms  {}",
                st.applied,
                st.calls,
                st.failed,
                st.time.as_secs_f64() * 1e3,
                name
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_add_up_and_rank_by_applications() {
        let mut p = RewriteProfile::default();
        let one = RewriterStats {
            calls: 3,
            applied: 1,
            failed: 0,
            time: Duration::from_micros(5),
        };
        p.record("b", &one);
        p.record("b", &one);
        p.record(
            "a",
            &RewriterStats {
                applied: 5,
                calls: 5,
                ..one
            },
        );
        p.record("never", &RewriterStats::default());
        assert_eq!(p.rewriters["b"].calls, 6);
        assert!(
            !p.rewriters.contains_key("never"),
            "unused rewriters stay out"
        );
        let names: Vec<&str> = p.applied().into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["a", "b"]);
        assert!(p.summary().contains("  a\n"), "{}", p.summary());
    }
}
