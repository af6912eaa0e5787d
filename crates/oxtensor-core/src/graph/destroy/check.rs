//! What the handler refuses about one destroyer, with PyTensor's messages
//! (each naming the nodes and values involved): a second destroyer of the
//! same memory, destroying a constant or an `indestructible` value, and
//! input aliasing beyond what the op tolerates. Its readers come out too,
//! for the orderings.

use super::DestroyHandler;
use crate::error::{Error, Result};
use crate::graph::{Client, FunctionGraph, NodeId, VarId};

impl DestroyHandler {
    /// Checks destroyer `d` and calls `reader(r, v)` for every other node
    /// `r` reading an alias `v` of what it destroys (they must run first).
    pub(super) fn check_destroyer(
        &self,
        fg: &FunctionGraph,
        d: NodeId,
        reader: &mut impl FnMut(NodeId, VarId),
    ) -> Result<()> {
        let Some(entries) = self.destroyed.get(&d) else {
            return Ok(());
        };
        for &(pos, root) in entries {
            self.check_single_destroyer(fg, d, root)?;
            let tree = self.views.tree(root);
            check_destructible(fg, d, &tree)?;
            self.check_aliasing(fg, d, pos, root)?;
            for &v in &tree {
                for &c in fg.clients(v) {
                    if let Client::Node(r, _) = c {
                        if r != d {
                            reader(r, v);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn check_single_destroyer(&self, fg: &FunctionGraph, d: NodeId, root: VarId) -> Result<()> {
        let other = self
            .by_root
            .get(&root)
            .and_then(|ds| ds.iter().find(|&&o| o != d));
        let Some(&other) = other else {
            return Ok(());
        };
        let g = fg.graph();
        Err(Error::Inconsistency(format!(
            "Multiple destroyers of {}: {} and {}",
            g.describe_var(root),
            g.describe_node(other),
            g.describe_node(d)
        )))
    }

    /// PyTensor's input-aliasing rule: no other input of `d` may be an
    /// alias of the destroyed input at `pos`, except the same variable at
    /// a position the op lists in `destroyhandler_tolerate_same`, or any
    /// alias at one it lists in `destroyhandler_tolerate_aliased`.
    fn check_aliasing(&self, fg: &FunctionGraph, d: NodeId, pos: usize, root: VarId) -> Result<()> {
        let node = fg.graph().node(d);
        let same = node.op.destroyhandler_tolerate_same();
        let aliased = node.op.destroyhandler_tolerate_aliased();
        let destroyed = node.inputs[pos];
        for (i, &inp) in node.inputs.iter().enumerate() {
            if i == pos && inp == destroyed || aliased.contains(&(pos, i)) {
                continue;
            }
            if self.views.root(inp) != root {
                continue;
            }
            if inp == destroyed && same.contains(&(pos, i)) {
                continue;
            }
            return Err(Error::Inconsistency(format!(
                "Input aliasing: {} ({pos}, {i}): input {i} ({}) is an alias of input {pos} ({}), \
                 which the node destroys",
                fg.graph().describe_node(d),
                fg.graph().describe_var(inp),
                fg.graph().describe_var(destroyed)
            )));
        }
        Ok(())
    }
}

/// Constants and variables tagged `indestructible` may not be destroyed,
/// nor may any value whose memory they share.
fn check_destructible(fg: &FunctionGraph, d: NodeId, tree: &[VarId]) -> Result<()> {
    let g = fg.graph();
    let bad: Vec<String> = tree
        .iter()
        .filter(|&&v| g.var(v).is_constant() || g.var(v).indestructible)
        .map(|&v| g.describe_var(v))
        .collect();
    if bad.is_empty() {
        return Ok(());
    }
    Err(Error::Inconsistency(format!(
        "Attempting to destroy indestructible variables: [{}] (destroyed by {})",
        bad.join(", "),
        g.describe_node(d)
    )))
}
