/**
 * Who may talk to whom in a cluster, and how they prove it.
 *
 * <ul>
 *   <li>{@link io.weightstore.store.security.CertificateAuthority}: the cluster CA ({@code ca.crt},
 *       {@code ca.key}), which issues identities.</li>
 *   <li>{@link io.weightstore.store.security.Credentials}: one identity's directory ({@code ca.crt},
 *       {@code identity.crt}, {@code identity.key}), giving mutual TLS 1.3 for JDK sockets and gRPC.</li>
 *   <li>{@link io.weightstore.store.security.Identity}, {@link io.weightstore.store.security.Role},
 *       {@link io.weightstore.store.security.Permission}: who a peer is and what it may do;
 *       {@link io.weightstore.store.security.IdentityCertificates} says how a certificate carries it.</li>
 *   <li>{@link io.weightstore.store.security.Tokens}: bearer tokens bound to an identity, stored hashed.</li>
 * </ul>
 *
 * <p>Nothing here logs, and no message or {@code toString} includes a private key or a token.
 */
package io.weightstore.store.security;
