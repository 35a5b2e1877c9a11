use thiserror::Error;

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CfrError {
    #[error(transparent)]
    Store(#[from] store::StoreError),
    #[error("a decision has {actions} actions but the table's records hold at most {max}")]
    TooManyActions { actions: usize, max: usize },
    #[error(
        "the game draws chance outcomes it cannot list (a shuffled deal); full-tree solvers need \
         every outcome: solve it with a sampling solver such as external-sampling MCCFR"
    )]
    SampledChance,
    #[error("invalid discount schedule: {0}")]
    Schedule(String),
    #[error("invalid pruning: {0}")]
    Pruning(String),
    #[error("invalid warm start: {0}")]
    WarmStart(String),
    #[error("invalid traverser sampling: {0}")]
    TraverserSampling(String),
    #[error("invalid opponent model: {0}")]
    OpponentModel(String),
    #[error("could not start the thread pool: {0}")]
    ThreadPool(String),
    #[error(transparent)]
    Collective(#[from] crate::distributed::CollectiveError),
    #[error("replicas cannot be kept identical: {0}")]
    Replica(String),
    #[error(
        "exploitability is defined here for two-player zero-sum games; this game has {0} players"
    )]
    NotTwoPlayer(usize),
    #[error(
        "iteration {0} is past the record format's limit of {last} (each record stamps its last iteration in 32 bits, in steps of 1,024 iterations past 2^31): the run has trained as far as its store can record; its last checkpoint is intact, export it", last = store::stamp::LAST_ITERATION
    )]
    IterationLimit(u64),
}
