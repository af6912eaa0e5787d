//! [`InsertionList`]: distinct values in insertion order, with O(1)
//! amortized removal of any of them, read through a [`Live`] view.
//!
//! Clients lists are read in insertion order (PyTensor's order, so rewrites
//! visit clients the same way) and shrink one value at a time as rewrites
//! replace their readers. A variable read by 50,000 nodes made
//! `Vec::remove` cost the list's length per removal: a third of a
//! 100,000-node compile. Canonicalizing rebuilds a chain from its output
//! back, so the inplace phase then removes from the middle of the list, and
//! no end-biased trick helps. Here a removal leaves a hole, holes are
//! squeezed out once they outnumber the live values, and a long list keeps
//! a map from value to slot, so no removal scans.

use rustc_hash::FxHashMap;
use std::hash::Hash;

/// Below this length a removal scans: cheaper than hashing.
const INDEX_FROM: usize = 32;

/// Distinct values in insertion order (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct InsertionList<T> {
    /// Values and holes (`None`: a removed value), in insertion order.
    slots: Vec<Option<T>>,
    live: usize,
    /// Slot of each value, kept once the list has grown long.
    index: Option<FxHashMap<T, u32>>,
}

impl<T> Default for InsertionList<T> {
    fn default() -> Self {
        InsertionList {
            slots: Vec::new(),
            live: 0,
            index: None,
        }
    }
}

/// The live values of an [`InsertionList`], oldest first.
#[derive(Clone, Copy, Debug)]
pub struct Live<'a, T> {
    slots: &'a [Option<T>],
    live: usize,
}

impl<T> Default for Live<'_, T> {
    fn default() -> Self {
        Live {
            slots: &[],
            live: 0,
        }
    }
}

impl<'a, T: PartialEq> Live<'a, T> {
    /// The values, oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &'a T> + Clone + 'a {
        self.slots.iter().filter_map(Option::as_ref)
    }

    /// How many values there are.
    pub fn len(&self) -> usize {
        self.live
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Whether `value` is one of them.
    pub fn contains(&self, value: &T) -> bool {
        self.iter().any(|v| v == value)
    }

    /// The value, if it is the only one (what `[only]` matched on a slice).
    /// Holes never outnumber live values by much, so this is O(1).
    pub fn only(&self) -> Option<&'a T> {
        if self.live == 1 {
            self.iter().next()
        } else {
            None
        }
    }

    /// The values, oldest first, collected.
    pub fn to_vec(&self) -> Vec<T>
    where
        T: Copy,
    {
        self.iter().copied().collect()
    }
}

impl<'a, T: PartialEq> IntoIterator for Live<'a, T> {
    type Item = &'a T;
    type IntoIter =
        std::iter::FilterMap<std::slice::Iter<'a, Option<T>>, fn(&'a Option<T>) -> Option<&'a T>>;

    fn into_iter(self) -> Self::IntoIter {
        self.slots.iter().filter_map(Option::as_ref)
    }
}

impl<T: Copy + Eq + Hash> InsertionList<T> {
    pub(crate) fn live(&self) -> Live<'_, T> {
        Live {
            slots: &self.slots,
            live: self.live,
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.live == 0
    }

    pub(crate) fn push(&mut self, value: T) {
        if let Some(index) = &mut self.index {
            index.insert(value, self.slots.len() as u32);
        }
        self.slots.push(Some(value));
        self.live += 1;
        if self.index.is_none() && self.live > INDEX_FROM {
            self.reindex();
        }
    }

    /// Removes `value` and reports whether it was there.
    pub(crate) fn remove(&mut self, value: &T) -> bool {
        let slot = match &mut self.index {
            Some(index) => index.remove(value).map(|s| s as usize),
            None => self.slots.iter().position(|v| v.as_ref() == Some(value)),
        };
        let Some(slot) = slot else { return false };
        self.slots[slot] = None;
        self.live -= 1;
        if self.slots.len() - self.live > self.live.max(INDEX_FROM / 4) {
            self.compact();
        }
        true
    }

    /// Rewrites every live value in place (an output renumbered after
    /// another is removed), keeping the order.
    pub(crate) fn map_in_place(&mut self, f: impl Fn(&mut T)) {
        self.slots.iter_mut().flatten().for_each(f);
        if self.index.is_some() {
            self.reindex();
        }
    }

    /// Squeezes out the holes, so memory and iteration stay within a
    /// constant factor of the live values (amortized O(1) per removal).
    fn compact(&mut self) {
        self.slots.retain(Option::is_some);
        if self.live <= INDEX_FROM / 2 {
            self.index = None;
        } else {
            self.reindex();
        }
    }

    fn reindex(&mut self) {
        let slots = self.slots.iter().enumerate();
        self.index = Some(slots.filter_map(|(i, v)| Some(((*v)?, i as u32))).collect());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn removal_keeps_order() {
        let mut list = InsertionList::default();
        (0..6).for_each(|v| list.push(v));
        assert!(list.remove(&1));
        assert!(list.remove(&4));
        assert!(!list.remove(&9));
        assert_eq!(list.live().to_vec(), [0, 2, 3, 5]);
        list.push(7);
        assert_eq!(list.live().to_vec(), [0, 2, 3, 5, 7]);
        assert_eq!(list.live().len(), 5);
        assert_eq!(list.live().only(), None);
    }

    #[test]
    fn holes_are_squeezed_out_and_the_index_follows() {
        let mut list = InsertionList::default();
        (0..1000).for_each(|v| list.push(v));
        assert!(list.index.is_some());
        // From the middle outwards: the order the inplace phase removes in.
        for v in (0..500).rev().chain(500..990) {
            assert!(list.remove(&v));
        }
        assert_eq!(list.live().to_vec(), (990..1000).collect::<Vec<_>>());
        assert!(list.slots.len() <= 2 * 10 + INDEX_FROM / 4 + 1);
        assert_eq!(list.live().only(), None);
        (990..999).for_each(|v| assert!(list.remove(&v)));
        assert_eq!(list.live().only(), Some(&999));
    }

    #[test]
    fn map_in_place_keeps_removal_working() {
        let mut list = InsertionList::default();
        (0..100).for_each(|v| list.push(v));
        list.map_in_place(|v| *v += 1000);
        assert!(list.remove(&1050));
        assert!(!list.remove(&50));
        assert_eq!(list.live().len(), 99);
    }

    proptest! {
        /// Any interleaving of pushes and removals leaves what a plain
        /// `Vec` with `retain` would: the same values in the same order.
        #[test]
        fn behaves_as_an_ordered_vec(ops in prop::collection::vec((any::<bool>(), 0u8..80), 0..400)) {
            let mut list = InsertionList::default();
            let mut model: Vec<u8> = Vec::new();
            for (push, v) in ops {
                if push && !model.contains(&v) {
                    list.push(v);
                    model.push(v);
                } else {
                    let had = model.contains(&v);
                    model.retain(|x| *x != v);
                    prop_assert_eq!(list.remove(&v), had);
                }
                prop_assert_eq!(list.live().to_vec(), model.clone());
                prop_assert_eq!(list.live().len(), model.len());
                prop_assert_eq!(list.is_empty(), model.is_empty());
                prop_assert_eq!(list.live().only(), (model.len() == 1).then(|| &model[0]));
            }
        }
    }
}
