package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.embedded.EmbeddedStore;
import io.weightstore.store.grpc.GrpcMasterApi;
import io.weightstore.store.security.Role;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every sealed object records who wrote it, in the master's words: the identity its TLS session or
 * token named, never anything the client sent. It survives a master restart and comes back on
 * stat, locate and list.
 */
class ObjectOwnerTest {
    private static final byte[] BYTES = "weights".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path tmp;

    private static StoreClient client(TestCluster cluster, Role role, String name) throws StoreException {
        return cluster.client(ClientOptions.defaults().withSameHostPath(false).withAuthentication(cluster.authentication(role, name)));
    }

    @Test
    void secureMasterRecordsTheAuthenticatedWriterOnStatLocateAndListAndAfterARestart() throws Exception {
        try (TestCluster cluster = TestCluster.secure(tmp, 2)) {
            StoreClient importer = client(cluster, Role.WRITER, "importer");
            StoreClient mallory = client(cluster, Role.WRITER, "mallory");
            StoreClient reader = client(cluster, Role.READER, "engine");

            assertThat(importer.put("a", BYTES, PutOptions.defaults()).owner()).isEqualTo("writer importer");
            assertThat(reader.stat("a").owner()).isEqualTo("writer importer");
            try (var object = reader.open("a")) {
                assertThat(object.object().owner()).as("locate").isEqualTo("writer importer");
            }

            mallory.put("a", BYTES, PutOptions.defaults().withReplace(true));
            assertThat(reader.list("")).singleElement().extracting(ObjectMeta::owner).isEqualTo("writer mallory");

            cluster.stopMaster();
            cluster.startMaster();
            assertThat(client(cluster, Role.READER, "engine").stat("a").owner()).as("after a restart").isEqualTo("writer mallory");
        }
    }

    @Test
    void onlyTheWriterWhoStartedAPutMaySealOrAbortIt() throws Exception {
        try (TestCluster cluster = TestCluster.secure(tmp, 1);
                GrpcMasterApi importer = GrpcMasterApi.connect(cluster.masterAddress(), cluster.authentication(Role.WRITER, "importer"));
                GrpcMasterApi mallory = GrpcMasterApi.connect(cluster.masterAddress(), cluster.authentication(Role.WRITER, "mallory"))) {
            PutGrant put = importer.putStart("empty", 0, PutOptions.defaults());
            assertThatThrownBy(() -> mallory.putEnd(put.putId(), List.of()))
                    .asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                    .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.PERMISSION_DENIED))
                    .hasMessageContaining("was started by writer importer; only its writer may seal it, not writer mallory");
            assertThatThrownBy(() -> mallory.putAbort(put.putId()))
                    .asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                    .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.PERMISSION_DENIED))
                    .hasMessageContaining("was started by writer importer; only its writer may abort it, not writer mallory");
            assertThat(importer.putEnd(put.putId(), List.of()).owner()).isEqualTo("writer importer");
        }
    }

    @Test
    void storesWithoutIdentitiesRecordNoOwner() throws Exception {
        try (TestCluster cluster = new TestCluster(tmp.resolve("insecure"), 1)) {
            assertThat(cluster.client().put("a", BYTES, PutOptions.defaults()).owner()).isEmpty();
        }
        try (StoreClient embedded = EmbeddedStore.open(tmp.resolve("embedded"), 16L << 20, ClientOptions.defaults())) {
            assertThat(embedded.put("a", BYTES, PutOptions.defaults()).owner()).isEmpty();
        }
    }
}
