//! Per-node call counts and times, and the summary PyTensor's profiler
//! prints (nodes sorted by time).

use std::fmt::Write;
use std::time::Duration;

/// One node's numbers.
#[derive(Clone, Debug, Default)]
pub struct NodeStats {
    /// The node, as `str(apply)` prints it.
    pub node: String,
    /// The op's class name.
    pub op_class: String,
    /// Whether it ran host (Python) code.
    pub host: bool,
    /// Number of calls.
    pub calls: u64,
    /// Total time spent in the node.
    pub time: Duration,
}

/// A compiled function's profile.
#[derive(Clone, Debug, Default)]
pub struct Profile {
    /// Per node, in toposort order.
    pub nodes: Vec<NodeStats>,
    /// Number of calls of the function.
    pub calls: u64,
    /// Total time inside the function.
    pub total: Duration,
}

impl Profile {
    /// The text summary: totals, then nodes sorted by time.
    pub fn summary(&self, name: &str) -> String {
        let mut s = String::new();
        let node_time: Duration = self.nodes.iter().map(|n| n.time).sum();
        let host: Duration = self.nodes.iter().filter(|n| n.host).map(|n| n.time).sum();
        let _ = writeln!(
            s,
            "Function profiling\n==================\n  Message: {name}"
        );
        let _ = writeln!(
            s,
            "  Time in {} calls to Function.__call__: {:.6e}s",
            self.calls,
            self.total.as_secs_f64()
        );
        let _ = writeln!(
            s,
            "  Time in thunks: {:.6e}s (Python ops: {:.6e}s)",
            node_time.as_secs_f64(),
            host.as_secs_f64()
        );
        let _ = writeln!(s, "\nApply\n------\n  <% time> <sum %> <apply time> <time per call> <#call> <id> <Apply name>");
        let mut order: Vec<usize> = (0..self.nodes.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(self.nodes[i].time));
        let mut cum = 0.0;
        for i in order {
            let n = &self.nodes[i];
            let pct = if node_time.is_zero() {
                0.0
            } else {
                100.0 * n.time.as_secs_f64() / node_time.as_secs_f64()
            };
            cum += pct;
            let per = if n.calls == 0 {
                0.0
            } else {
                n.time.as_secs_f64() / n.calls as f64
            };
            let tag = if n.host { " (py)" } else { "" };
            let _ = writeln!(
                s,
                "  {pct:5.1}% {cum:6.1}% {:.3e}s {per:.3e}s {:>6} {i:>4} {}{tag}",
                n.time.as_secs_f64(),
                n.calls,
                n.node
            );
        }
        s
    }
}
