//! The server's connection table: at most [`MAX_CONNECTIONS`] connections
//! at once, and when it is full, a new connection takes the place of the
//! connection that has waited longest without a request in flight (still
//! sending its headers, or idle between requests). A client that opens
//! hundreds of connections and sends nothing, reconnecting as fast as it
//! is cut off, can then hold only slots that the next real client takes
//! back, instead of the whole table.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use tokio::sync::Notify;

/// The most connections served at once.
pub const MAX_CONNECTIONS: usize = 256;

/// What the table knows of one connection.
#[derive(Debug)]
pub struct Connection {
    /// Requests being handled now: a connection with one is never evicted.
    busy: AtomicUsize,
    /// Milliseconds since the table was made, at the last request's start
    /// or end (or the accept).
    last_active: AtomicU64,
    /// Told when the connection is evicted.
    evicted: Notify,
    epoch: Instant,
}

impl Connection {
    fn touch(&self) {
        self.last_active
            .store(self.epoch.elapsed().as_millis() as u64, Ordering::Relaxed);
    }

    /// Marks a request in flight until the returned guard drops.
    pub fn request(self: &Arc<Self>) -> RequestGuard {
        self.busy.fetch_add(1, Ordering::AcqRel);
        self.touch();
        RequestGuard(Arc::clone(self))
    }

    /// Resolves when the table evicts this connection.
    pub async fn evicted(&self) {
        self.evicted.notified().await;
    }
}

/// A request in flight on a connection.
#[derive(Debug)]
pub struct RequestGuard(Arc<Connection>);

impl Drop for RequestGuard {
    fn drop(&mut self) {
        self.0.touch();
        self.0.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The open connections, by number.
#[derive(Debug)]
pub struct ConnectionTable {
    open: Mutex<HashMap<u64, Arc<Connection>>>,
    next: AtomicU64,
    epoch: Instant,
    limit: usize,
}

/// A connection's place in the table, given back when it drops.
#[derive(Debug)]
pub struct Slot {
    table: Arc<ConnectionTable>,
    id: u64,
    pub connection: Arc<Connection>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.table
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.id);
    }
}

impl ConnectionTable {
    pub fn new(limit: usize) -> Arc<ConnectionTable> {
        Arc::new(ConnectionTable {
            open: Mutex::new(HashMap::new()),
            next: AtomicU64::new(0),
            epoch: Instant::now(),
            limit,
        })
    }

    /// A place for a new connection. When the table is full, the connection
    /// idle longest (no request in flight) is told to close and this one
    /// takes its place; when every connection is busy, there is no place.
    pub fn admit(self: &Arc<Self>) -> Option<Slot> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if open.len() >= self.limit {
            let idlest = open
                .iter()
                .filter(|(_, connection)| connection.busy.load(Ordering::Acquire) == 0)
                .min_by_key(|(id, connection)| {
                    (connection.last_active.load(Ordering::Relaxed), **id)
                })
                .map(|(&id, _)| id)?;
            if let Some(evicted) = open.remove(&idlest) {
                // `notify_one` keeps the wake-up for a task not yet waiting.
                evicted.evicted.notify_one();
            }
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let connection = Arc::new(Connection {
            busy: AtomicUsize::new(0),
            last_active: AtomicU64::new(0),
            evicted: Notify::new(),
            epoch: self.epoch,
        });
        connection.touch();
        open.insert(id, Arc::clone(&connection));
        Some(Slot {
            table: Arc::clone(self),
            id,
            connection,
        })
    }

    pub fn len(&self) -> usize {
        self.open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_table_evicts_the_idlest_connection_never_a_busy_one() {
        let table = ConnectionTable::new(3);
        let first = table.admit().unwrap();
        let second = table.admit().unwrap();
        let third = table.admit().unwrap();
        let _busy = first.connection.request();
        std::thread::sleep(std::time::Duration::from_millis(5));
        third.connection.touch();
        // Full: `second` has waited longest without a request.
        let fourth = table.admit().unwrap();
        assert_eq!(table.len(), 3);
        let open: Vec<u64> = {
            let open = table.open.lock().unwrap();
            let mut ids: Vec<u64> = open.keys().copied().collect();
            ids.sort_unstable();
            ids
        };
        assert_eq!(open, vec![first.id, third.id, fourth.id]);
        drop(second);
        assert_eq!(
            table.len(),
            3,
            "an evicted slot's drop removes nothing else"
        );
        let _busy_three = third.connection.request();
        let _busy_four = fourth.connection.request();
        assert!(table.admit().is_none(), "every connection busy: no place");
    }
}
