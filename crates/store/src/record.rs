//! The in-flight form of one infostate's data.

/// The widest record any backend stores. Euchre's widest decision (round 2
/// with going alone) has 7 actions; one more keeps arrays a power of two.
pub const MAX_ACTIONS: usize = 8;

/// Regrets and strategy sums for one infostate, as the solver reads and
/// writes them. Backends may store fewer actions or a narrower encoding,
/// but always hand out this shape.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Record {
    pub regrets: [f32; MAX_ACTIONS],
    pub strategy_sum: [f32; MAX_ACTIONS],
    /// The iteration that last updated this record, as a
    /// [`stamp`](crate::stamp) (the iteration itself below 2^31); 0 means
    /// never. Lazy discounting catches the values up from here when next
    /// touched.
    pub stamp: u32,
}
