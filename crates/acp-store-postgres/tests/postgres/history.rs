//! Histories written in runs (one statement per run of appends), read back as memory held
//! them (see `common::runs_read_back_as_memory_held_them`); random batches against the model
//! of what writes mean (see `model`).

use acp_agent::SessionStore;
use acp_store_postgres::PostgresBackend;
use acp_testkit::services::Postgres;

use crate::common::{bounded, runs_options, runs_read_back_as_memory_held_them};

#[test]
fn runs_of_updates_read_back_as_memory_held_them() {
    let Some(server) = Postgres::start() else {
        return;
    };
    let url = server.create_database("runs");
    bounded(async {
        runs_read_back_as_memory_held_them(|| async {
            let backend = PostgresBackend::open(&url)
                .await
                .expect("open the database");
            SessionStore::durable(backend, runs_options()).expect("a durable store")
        })
        .await;
    });
}

#[test]
fn random_batches_read_back_as_the_model_says() {
    let Some(server) = Postgres::start() else {
        return;
    };
    let url = server.create_database("model");
    bounded(crate::model::batches_read_back_as_the_model_says(
        || async {
            PostgresBackend::open(&url)
                .await
                .expect("open the database")
        },
    ));
}
