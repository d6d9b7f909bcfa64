/**
 * The Mongo bridge: {@link io.hybridcache.mongo.MongoBridge} puts the hybrid cache (DRAM over flash)
 * in front of MongoDB collections as {@link io.hybridcache.mongo.CachedCollection}s, documents stored
 * catalogue-encoded by {@link io.hybridcache.mongo.DocumentCodec}.
 */
package io.hybridcache.mongo;
