package io.weightstore.jlama;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.tjake.jlama.model.DistributedContext;
import com.github.tjake.jlama.model.llama.LlamaConfig;
import com.github.tjake.jlama.safetensors.SafeTensorIndex;
import com.github.tjake.jlama.safetensors.prompt.PromptContext;
import com.github.tjake.jlama.safetensors.tokenizer.Tokenizer;
import com.github.tjake.jlama.tensor.AbstractTensor;
import io.weightstore.format.DType;
import io.weightstore.format.SafetensorsWriter;
import io.weightstore.format.TensorSpec;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.store.TestCluster;
import io.weightstore.store.api.Progress;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.embedded.EmbeddedStore;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointException;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointImporter;
import io.weightstore.weights.ImportRequest;
import io.weightstore.weights.WeightstoreHome;
import io.weightstore.weights.loader.CheckpointSource;
import io.weightstore.weights.loader.LoadOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Jlama on a model from the store generates what it generates from the same files on disk. */
class JlamaFromStoreTest {
    private static final String PROMPT = "the quick brown fox";

    @TempDir
    Path tmp;

    @AfterEach
    void restoreHome() {
        System.clearProperty(WeightstoreHome.PROPERTY);
    }

    private Path synthAndImport(DType dtype, String id) throws IOException {
        System.setProperty(WeightstoreHome.PROPERTY, tmp.resolve("home").toString());
        Path dir = tmp.resolve("model-" + dtype);
        SyntheticCheckpoint.write(SynthSpec.tiny(dtype, 11), dir, b -> {});
        try (StoreClient store = EmbeddedStore.open(tmp.resolve("home/store"), 256L << 20, ClientOptions.defaults())) {
            new CheckpointImporter(new Catalog(store)).run(new ImportRequest(new CheckpointId(id), "org/tiny", "main", dir, 1, false, 2),
                    Progress.NONE);
        }
        return dir;
    }

    private static Completion generate(String reference) throws IOException {
        try (JlamaModels.Loaded loaded = JlamaModels.load(reference, LoadOptions.defaults())) {
            return Completion.generate(loaded.model(), PromptContext.of(PROMPT), 24, 0.0f, token -> {});
        }
    }

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"F32", "BF16"})
    void greedyGenerationFromTheStoreEqualsGenerationFromTheDirectory(DType dtype) throws IOException {
        Path dir = synthAndImport(dtype, "tiny");
        Completion fromDisk = generate(dir.toString());
        Completion fromStore = generate("weightstore://tiny");
        assertThat(fromStore.generatedTokens()).isPositive();
        assertThat(fromStore.text()).isEqualTo(fromDisk.text());
        assertThat(fromStore.generatedTokens()).isEqualTo(fromDisk.generatedTokens());
    }

    @Test
    void greedyCompletionIsWhatJlamasOwnGenerateGives() throws IOException {
        synthAndImport(DType.F32, "greedy");
        Completion ours = generate("weightstore://greedy");
        String theirs;
        try (JlamaModels.Loaded loaded = JlamaModels.load("weightstore://greedy", LoadOptions.defaults())) {
            // Jlama's loop yields one token from the prompt's pass, then one per position up to its limit.
            var response = loaded.model().generate(UUID.randomUUID(), PromptContext.of(PROMPT), 0.0f,
                    loaded.model().getTokenizer().encode(PROMPT).length + 1 + 23, (t, f) -> {});
            theirs = response.responseText;
            // Jlama does not count the token the prompt's pass yields; we do.
            assertThat(ours.generatedTokens()).isEqualTo(response.generatedTokens + 1).isEqualTo(24);
        }
        // Jlama's decoding keeps state in the tokenizer (see TokenText): the same tokens through a fresh one.
        try (JlamaModels.Loaded fresh = JlamaModels.load("weightstore://greedy", LoadOptions.defaults())) {
            Tokenizer tokenizer = fresh.model().getTokenizer();
            StringBuilder decodedAsJlamaDoes = new StringBuilder();
            ours.tokens().stream().filter(t -> !tokenizer.getModel().isSpecialToken(t)).forEach(t -> decodedAsJlamaDoes.append(tokenizer.decode(t)));
            assertThat(decodedAsJlamaDoes.toString()).isEqualTo(theirs);
        }
    }

    @Test
    void aModelIsBuiltOnTheCheckpointsConfigWhenTheLastLoadHereLeftAnotherSetOfMetadata() throws IOException {
        Path dir = synthAndImport(DType.F32, "stale");
        Completion fromDisk = generate(dir.toString());
        Path other = anotherSetOfMetadata(dir, "stale");
        ObjectNode config = (ObjectNode) JsonMapper.builder().build().readTree(other.resolve("config.json").toFile());
        assertThat(config.get("num_hidden_layers").asInt()).isEqualTo(2);
        Files.writeString(other.resolve("config.json"), config.put("num_hidden_layers", 1).toString());

        try (JlamaModels.Loaded loaded = JlamaModels.load("weightstore://stale", LoadOptions.defaults())) {
            assertThat(loaded.model().getConfig().numberOfLayers).isEqualTo(2);
            assertThat(Completion.generate(loaded.model(), PromptContext.of(PROMPT), 24, 0.0f, token -> {}).text())
                    .isEqualTo(fromDisk.text());
        }
        Path written = CheckpointSource.metadataLeftBefore(new CheckpointId("stale"), LoadOptions.defaults()).orElseThrow();
        assertThat(written).isNotEqualTo(other);
        assertThat(written.resolve("config.json")).hasSameBinaryContentAs(dir.resolve("config.json"));
        assertThat(other.resolve("config.json")).as("another set, which a load of another version may be reading, is left as it is")
                .hasContent(config.toString());
    }

    @Test
    void aCachedTokenizerJlamaCannotReadIsWrittenAgainAndTheModelLoads() throws IOException {
        Path dir = synthAndImport(DType.F32, "garbled");
        Completion fromDisk = generate(dir.toString());
        generate("weightstore://garbled");
        Path cached = CheckpointSource.metadataLeftBefore(new CheckpointId("garbled"), LoadOptions.defaults()).orElseThrow();
        Files.writeString(cached.resolve("tokenizer.json"), "{\"model\": ");

        assertThat(generate("weightstore://garbled").text()).isEqualTo(fromDisk.text());
        assertThat(cached.resolve("tokenizer.json")).hasSameBinaryContentAs(dir.resolve("tokenizer.json"));
    }

    @Test
    void aCheckpointNotInTheStoreIsReportedAsSuchWhenAnEarlierLoadLeftItsMetadataInTheCache() throws IOException {
        Path dir = synthAndImport(DType.F32, "present");
        anotherSetOfMetadata(dir, "gone");

        assertThatThrownBy(() -> JlamaModels.load("weightstore://gone", LoadOptions.defaults()))
                .isInstanceOfSatisfying(CheckpointException.class, e -> assertThat(e.code()).isEqualTo(CheckpointException.Code.NOT_FOUND))
                .hasMessageContaining("no checkpoint gone");
        // Nothing of the failed load holds the embedded store: the next load opens it.
        assertThat(generate("weightstore://present").generatedTokens()).isPositive();
    }

    /**
     * The metadata files of {@code dir} as a set of checkpoint {@code id}'s that a load here wrote last, as a load of
     * another version would have left it ({@code $WEIGHTSTORE_HOME/metadata/ID/SET}, named by {@code current}).
     */
    private Path anotherSetOfMetadata(Path dir, String id) throws IOException {
        String set = "0123456789abcdef0123456789abcdef";
        Path cached = Files.createDirectories(tmp.resolve("home/metadata").resolve(id).resolve(set));
        try (var files = Files.list(dir)) {
            for (Path file : files.filter(f -> !f.getFileName().toString().endsWith(".safetensors")).toList()) {
                Files.copy(file, cached.resolve(file.getFileName()));
            }
        }
        Files.writeString(cached.resolveSibling("current"), set + "\n");
        assertThat(CheckpointSource.metadataLeftBefore(new CheckpointId(id), LoadOptions.defaults())).contains(cached);
        return cached;
    }

    @ParameterizedTest
    @EnumSource(Source.class)
    void closingAModelDeletesTheKeyValueCachePagesItWrote(Source source) throws IOException {
        Path dir = synthAndImport(DType.F32, "pages");
        Path pages;
        try (JlamaModels.Loaded loaded = JlamaModels.load(source == Source.STORE ? "weightstore://pages" : dir.toString(),
                LoadOptions.defaults())) {
            pages = loaded.model().getConfig().workingDirectory().orElseThrow().toPath();
            // Jlama's own generation keeps a session's cache in page files; ours keeps it in memory.
            loaded.model().generate(UUID.randomUUID(), PromptContext.of(PROMPT), 0.0f,
                    loaded.model().getTokenizer().encode(PROMPT).length + 4, (t, f) -> {});
            try (var written = Files.list(pages)) {
                assertThat(written.filter(p -> p.getFileName().toString().endsWith(".page"))).isNotEmpty();
            }
        }
        assertThat(pages).doesNotExist();
    }

    enum Source { STORE, DIRECTORY }

    @Test
    void greedyTextIsTheSameOnEveryRunOfOneModel() throws IOException {
        Path dir = synthAndImport(DType.F32, "again");
        try (JlamaModels.Loaded loaded = JlamaModels.load(dir.toString(), LoadOptions.defaults())) {
            String first = Completion.generate(loaded.model(), PromptContext.of(PROMPT), 24, 0f, t -> {}).text();
            for (int run = 0; run < 2; run++) {
                assertThat(Completion.generate(loaded.model(), PromptContext.of(PROMPT), 24, 0f, t -> {}).text()).isEqualTo(first);
            }
        }
    }

    @Test
    void tokensDecodeBackToTheirTextWithMultiByteCharactersWhole() throws IOException {
        Path dir = tmp.resolve("tokenizer");
        SyntheticCheckpoint.write(SynthSpec.tiny(DType.F32, 3), dir, b -> {});
        String text = "naïve café, 5€ and 🙂 twice: naïve café 🙂";
        try (JlamaModels.Loaded loaded = JlamaModels.load(dir.toString(), LoadOptions.defaults())) {
            Tokenizer tokenizer = loaded.model().getTokenizer();
            long[] tokens = tokenizer.encode(text);
            for (int pass = 0; pass < 2; pass++) {
                TokenText decoder = new TokenText(tokenizer);
                StringBuilder decoded = new StringBuilder();
                for (long token : tokens) {
                    decoded.append(decoder.decode((int) token));
                }
                decoded.append(decoder.finish());
                assertThat(decoded.toString().stripLeading()).isEqualTo(text);
            }
            TokenText cutShort = new TokenText(tokenizer);
            long euroFirstByte = tokenizer.getModel().vocabLookup.get("<0xE2>");
            assertThat(cutShort.decode((int) euroFirstByte)).isEmpty();
            assertThat(cutShort.finish()).isEqualTo("\uFFFD");
        }
    }

    @Test
    void sampledCompletionIsReproducibleForASeed() throws IOException {
        Path dir = synthAndImport(DType.F32, "seeded");
        String first = sample(dir, 7);
        assertThat(sample(dir, 7)).isEqualTo(first);
        assertThat(sample(dir, 8)).isNotEqualTo(first);
    }

    private static String sample(Path dir, long seed) throws IOException {
        try (JlamaModels.Loaded loaded = JlamaModels.load(dir.toString(), LoadOptions.defaults())) {
            return Completion.generate(loaded.model(), PromptContext.of(PROMPT), 24, 1.0f, seed, token -> {}).text();
        }
    }

    @Test
    void eachModelShardReadsOnlyItsRowsAndColumnsAndMatchesJlamasOwnLoader() throws Exception {
        Path dir = synthAndImport(DType.F32, "tp");
        LlamaConfig config = JsonMapper.builder().enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build()
                .readValue(dir.resolve("config.json").toFile(), LlamaConfig.class);
        SafeTensorIndex jlama = SafeTensorIndex.loadWithWeights(dir);
        List<String> rowSharded = List.of("model.layers.0.self_attn.q_proj.weight", "model.layers.1.self_attn.k_proj.weight",
                "model.layers.0.mlp.gate_proj.weight", "model.layers.1.mlp.up_proj.weight");
        List<String> columnSharded = List.of("model.layers.0.self_attn.o_proj.weight", "model.layers.1.mlp.down_proj.weight");
        try (StoreClient store = EmbeddedStore.open(tmp.resolve("home/store"), 256L << 20, ClientOptions.defaults());
                CheckpointSource source = CheckpointSource.open(store, new CheckpointId("tp"), LoadOptions.defaults())) {
            StoreWeightLoader loader = new StoreWeightLoader(source, false);
            for (int shard = 0; shard < 2; shard++) {
                DistributedContext dctx = DistributedContext.builder(config).setModelShard(shard).setNumModelShards(2).build();
                for (String name : rowSharded) {
                    assertSameShard(jlama, loader, source, name, dctx, true, false);
                }
                for (String name : columnSharded) {
                    assertSameShard(jlama, loader, source, name, dctx, false, true);
                }
                assertSameShard(jlama, loader, source, "model.layers.0.input_layernorm.weight", null, false, false);
            }
        }
        jlama.close();
    }

    private static void assertSameShard(SafeTensorIndex jlama, StoreWeightLoader loader, CheckpointSource source, String name,
            DistributedContext dctx, boolean rows, boolean columns) throws IOException {
        long full = source.tensors().get(name).info().byteSize();
        long before = source.bytesRead();
        AbstractTensor ours = loader.load(name, dctx, rows, columns);
        long read = source.bytesRead() - before;
        AbstractTensor theirs = jlama.load(name, dctx, rows, columns);
        assertThat(ours.shape().toString()).as(name).isEqualTo(theirs.shape().toString());
        assertThat(ours.getMemorySegment().byteSize()).as(name).isEqualTo(theirs.getMemorySegment().byteSize());
        assertThat(ours.getMemorySegment().mismatch(theirs.getMemorySegment())).as(name).isEqualTo(-1L);
        long expected = dctx == null ? full : full / 2;
        assertThat(read).as("bytes read for %s", name).isEqualTo(expected);
    }

    @Test
    void jlamaQuantizedQ8CheckpointLoadsFromTheStoreWithItsBlockScales() throws Exception {
        System.setProperty(WeightstoreHome.PROPERTY, tmp.resolve("home").toString());
        Path f32 = tmp.resolve("f32");
        SyntheticCheckpoint.write(SynthSpec.tiny(DType.F32, 13), f32, b -> {});
        Files.writeString(f32.resolve("README.md"), "# tiny\n");
        Path q8 = com.github.tjake.jlama.safetensors.SafeTensorSupport.quantizeModel(f32,
                com.github.tjake.jlama.safetensors.DType.I8, new String[] {"norm", "embed_tokens", "lm_head"}, null,
                Optional.of(tmp.resolve("q8")));
        try (StoreClient store = EmbeddedStore.open(tmp.resolve("home/store"), 256L << 20, ClientOptions.defaults())) {
            new CheckpointImporter(new Catalog(store)).run(new ImportRequest(new CheckpointId("q8"), "org/tiny-q8", "main", q8, 1, false, 2),
                    Progress.NONE);
        }
        SafeTensorIndex jlama = SafeTensorIndex.loadSingleFile(q8, "model.safetensors");
        try (StoreClient store = EmbeddedStore.open(tmp.resolve("home/store"), 256L << 20, ClientOptions.defaults());
                CheckpointSource source = CheckpointSource.open(store, new CheckpointId("q8"), LoadOptions.defaults())) {
            StoreWeightLoader loader = new StoreWeightLoader(source, true);
            String name = "model.layers.0.mlp.up_proj.weight";
            assertThat(loader.tensorInfoMap().get(name).dType).isEqualTo(com.github.tjake.jlama.safetensors.DType.I8);
            assertThat(loader.tensorInfoMap()).containsKey(name + ".qb");
            AbstractTensor ours = loader.load(name);
            AbstractTensor theirs = jlama.load(name);
            assertThat(ours.getClass()).isEqualTo(theirs.getClass());
            assertThat(ours.getMemorySegment().mismatch(theirs.getMemorySegment())).isEqualTo(-1L);
            for (int row = 0; row < 4; row++) {
                assertThat(ours.get(row, 5)).isEqualTo(theirs.get(row, 5));
            }
        }
        // Generating with Q8 weights needs jlama-native in Jlama 0.8.4 (its Java kernels throw on I8), from disk as from here.
        jlama.close();
    }

    @Test
    void wholeModelIsReadOnceAheadOfJlamaWhateverOrderItAsksIn() throws Exception {
        Path dir = synthAndImport(DType.BF16, "ahead");
        SafeTensorIndex jlama = SafeTensorIndex.loadWithWeights(dir);
        try (StoreClient store = EmbeddedStore.open(tmp.resolve("home/store"), 256L << 20, ClientOptions.defaults());
                CheckpointSource source = CheckpointSource.open(store, new CheckpointId("ahead"), LoadOptions.defaults())) {
            source.tensors();
            long headers = source.bytesRead();
            StoreWeightLoader loader = new StoreWeightLoader(source, true);
            List<String> names = new java.util.ArrayList<>(loader.tensorInfoMap().keySet());
            java.util.Collections.reverse(names);
            names.parallelStream().forEach(name -> {
                AbstractTensor ours = loader.load(name);
                assertThat(ours.getMemorySegment().mismatch(jlama.load(name).getMemorySegment())).as(name).isEqualTo(-1L);
            });
            assertThat(source.bytesRead() - headers).as("every tensor read exactly once").isEqualTo(source.tensorBytes());
            loader.close();
        }
        jlama.close();
    }

    @Test
    void aClosedLoaderReadsNoTensorAndSaysWhy() throws Exception {
        synthAndImport(DType.BF16, "closed");
        try (StoreClient store = EmbeddedStore.open(tmp.resolve("home/store"), 256L << 20, ClientOptions.defaults());
                CheckpointSource source = CheckpointSource.open(store, new CheckpointId("closed"), LoadOptions.defaults())) {
            StoreWeightLoader loader = new StoreWeightLoader(source, false);
            String name = loader.tensorInfoMap().keySet().iterator().next();
            loader.close();
            long before = source.bytesRead();

            assertThatThrownBy(() -> loader.load(name)).isInstanceOf(IllegalStateException.class).hasMessage("the loader of"
                    + " checkpoint closed is closed (the load it served failed): " + name + " is not read");
            assertThat(source.bytesRead()).isEqualTo(before);
        }
    }

    @Test
    void onTheStoresHostJlamaGetsReadOnlyViewsOfThePoolsThatFailLoudlyOnceTheSourceCloses() throws Exception {
        Path dir = synthAndImport(DType.BF16, "in-place");
        SafeTensorIndex jlama = SafeTensorIndex.loadWithWeights(dir);
        AbstractTensor kept;
        try (StoreClient store = EmbeddedStore.open(tmp.resolve("home/store"), 256L << 20, ClientOptions.defaults());
                CheckpointSource source = CheckpointSource.open(store, new CheckpointId("in-place"), LoadOptions.defaults())) {
            source.tensors();
            long copied = store.bytesRead();
            StoreWeightLoader loader = new StoreWeightLoader(source, true);
            for (String name : loader.tensorInfoMap().keySet()) {
                AbstractTensor ours = loader.load(name);
                assertThat(ours.getMemorySegment().isReadOnly()).as(name).isTrue();
                assertThat(ours.getMemorySegment().mismatch(jlama.load(name).getMemorySegment())).as(name).isEqualTo(-1L);
            }
            assertThat(store.bytesRead()).as("no byte copied out of the pool").isEqualTo(copied);
            kept = loader.load("model.embed_tokens.weight");
            assertThat(kept.get(0, 0)).isEqualTo(jlama.load("model.embed_tokens.weight").get(0, 0));
            loader.close();
        }
        assertThatThrownBy(() -> kept.get(0, 0)).isInstanceOf(IllegalStateException.class);
        jlama.close();
    }

    @Test
    void aWeightFileThatFailsItsCheckInPlaceIsLoadedFromAGoodCopyAndGeneratesTheSame() throws Exception {
        System.setProperty(WeightstoreHome.PROPERTY, tmp.resolve("home").toString());
        Path dir = tmp.resolve("model");
        SyntheticCheckpoint.write(SynthSpec.tiny(DType.F32, 11), dir, b -> {});
        String file;
        try (var files = Files.list(dir)) {
            file = files.map(f -> f.getFileName().toString()).filter(f -> f.endsWith(".safetensors")).findFirst().orElseThrow();
        }
        try (TestCluster cluster = new TestCluster(tmp.resolve("cluster"), 3)) {
            try (StoreClient store = cluster.client()) {
                new CheckpointImporter(new Catalog(store)).run(new ImportRequest(new CheckpointId("two"), "org/tiny", "main", dir, 2,
                        false, 2), Progress.NONE);
            }
            // Rot in the last tensor of the copy a same-host reader maps first, that only the checksums can see.
            long at = Files.size(dir.resolve(file)) - 100;
            cluster.flipByte("weights/two/files/" + file, (int) (at / TestCluster.SLICE), 0, at % TestCluster.SLICE);
            Completion fromDisk = generate(dir.toString());
            try (JlamaModels.Loaded loaded = JlamaModels.load("weightstore://two", LoadOptions.defaults().withStore(cluster.masterAddress()))) {
                assertThat(loaded.source().orElseThrow().awaitChecks()).as("files read instead of seen in place").containsExactly(file);
                Completion fromStore = Completion.generate(loaded.model(), PromptContext.of(PROMPT), 24, 0.0f, token -> {});
                assertThat(fromStore.text()).isEqualTo(fromDisk.text());
            }
        }
    }

    @Test
    void tensorInfoAndDtypeMatchJlamasOwnLoader() throws Exception {
        Path dir = synthAndImport(DType.BF16, "info");
        SafeTensorIndex jlama = SafeTensorIndex.loadWithWeights(dir);
        try (StoreClient store = EmbeddedStore.open(tmp.resolve("home/store"), 256L << 20, ClientOptions.defaults());
                CheckpointSource source = CheckpointSource.open(store, new CheckpointId("info"), LoadOptions.defaults())) {
            StoreWeightLoader loader = new StoreWeightLoader(source, true);
            assertThat(loader.tensorInfoMap().keySet()).isEqualTo(jlama.tensorInfoMap().keySet());
            loader.tensorInfoMap().forEach((name, info) -> {
                assertThat(info.dType).isEqualTo(jlama.tensorInfoMap().get(name).dType);
                assertThat(info.shape).isEqualTo(jlama.tensorInfoMap().get(name).shape);
            });
            assertThat(loader.getModelDType()).isEqualTo(jlama.getModelDType());
        }
        jlama.close();
    }

    @Test
    void aTensorOfADtypeJlamaLacksIsNamedWithItsDtypeWhenAskedFor() throws Exception {
        Path dir = tmp.resolve("fp8");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("config.json"), "{}");
        SafetensorsWriter.write(dir.resolve("model.safetensors"), List.of(new TensorSpec("scales", DType.F32, List.of(4L)),
                new TensorSpec("w.fp8", DType.F8_E4M3, List.of(4L, 4L))), Map.of(), Map.of("scales", new byte[16], "w.fp8", new byte[16]));
        try (StoreClient store = EmbeddedStore.open(tmp.resolve("home/store"), 256L << 20, ClientOptions.defaults())) {
            new CheckpointImporter(new Catalog(store)).run(new ImportRequest(new CheckpointId("fp8"), "org/fp8", "main", dir, 1, false, 1),
                    Progress.NONE);
            try (CheckpointSource source = CheckpointSource.open(store, new CheckpointId("fp8"), LoadOptions.defaults()
                    .withCacheDir(tmp.resolve("cache")))) {
                StoreWeightLoader loader = new StoreWeightLoader(source, true);
                assertThat(loader.tensorInfoMap()).containsOnlyKeys("scales");
                assertThatThrownBy(() -> loader.load("w.fp8", null, false, false)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("tensor w.fp8 of checkpoint fp8 has dtype F8_E4M3, which Jlama cannot load");
                assertThatThrownBy(() -> loader.load("absent", null, false, false)).hasMessage("absent is not in checkpoint fp8");
            }
        }
    }
}
