package io.weightstore.store.security;

import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLException;

/** Netty TLS contexts for gRPC with the same keys, trust and TLS 1.3 rule as the JDK sockets. */
final class GrpcTls {
    private GrpcTls() {}

    static SslContext server(PrivateKey key, X509Certificate certificate, X509Certificate ca)
            throws GeneralSecurityException, SSLException {
        return GrpcSslContexts.configure(SslContextBuilder.forServer(key, certificate))
                .trustManager(new ClusterTrustManager(ca, null))
                .clientAuth(ClientAuth.OPTIONAL)
                .protocols(TlsContexts.PROTOCOL)
                .build();
    }

    static SslContext client(PrivateKey key, X509Certificate certificate, X509Certificate ca, ExpectedPeer server)
            throws GeneralSecurityException, SSLException {
        return GrpcSslContexts.configure(SslContextBuilder.forClient())
                .keyManager(key, certificate)
                .trustManager(new ClusterTrustManager(ca, server))
                .protocols(TlsContexts.PROTOCOL)
                .build();
    }
}
