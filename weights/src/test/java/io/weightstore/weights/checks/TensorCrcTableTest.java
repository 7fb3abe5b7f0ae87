package io.weightstore.weights.checks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TensorCrcTableTest {
    private static TensorCrcTable parse(String json) throws IOException {
        return TensorCrcTable.fromJson(json.replace('\'', '"').getBytes(StandardCharsets.UTF_8), "checks/a.safetensors");
    }

    @Test
    void aTableWithFieldsInAnyOrderAndFieldsItDoesNotKnowReads() throws IOException {
        TensorCrcTable table = parse("{'note':{'x':[1,{}]},'tensors':[{'rows':{'2':['00000001','00000002']},'extra':[[]],"
                + "'crc32c':'e3069283','name':'w','columns':null}],'schemaVersion':1}");
        assertThat(table.tensor("w")).hasValue(new TensorCrcs("w", 0xe3069283, Map.of(2, List.of(1, 2)), Map.of()));
    }

    @Test
    void anEmptyTableReads() throws IOException {
        assertThat(parse("{'schemaVersion':1,'tensors':[]}").size()).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "not an object | ['schemaVersion',1] | is not a tensor CRC table of schema version 1",
        "another schema | {'schemaVersion':2,'tensors':[]} | is not a tensor CRC table of schema version 1",
        "no tensors | {'schemaVersion':1} | is not a tensor CRC table of schema version 1",
        "another schema named after its entries | {'tensors':[{'id':7}],'schemaVersion':2} | is not a tensor CRC table of schema version 1",
        "a tensor that is not an object | {'schemaVersion':1,'tensors':[3]} | tensor entry 0 is not an object: 3",
        "no name | {'schemaVersion':1,'tensors':[{'name':'w','crc32c':'00000000'},{'crc32c':'00000000'}]} | tensor entry 1 needs a string 'name'",
        "a number for a CRC | {'schemaVersion':1,'tensors':[{'name':'w','crc32c':12}]} | tensor entry 0 (w) needs a string 'crc32c'",
        "a short CRC | {'schemaVersion':1,'tensors':[{'name':'w','crc32c':'0abc'}]} | a CRC32C is 8 hex digits, found '0abc'",
        "a CRC not in hex | {'schemaVersion':1,'tensors':[{'name':'w','crc32c':'0000000g'}]} | not a hexadecimal digit",
        "a shard CRC that is a number | {'schemaVersion':1,'tensors':[{'name':'w','crc32c':'00000000','rows':{'2':[1,2]}}]}"
                + " | a CRC32C is 8 hex digits, found '1'",
        "a shard CRC that is an object | {'schemaVersion':1,'tensors':[{'name':'w','crc32c':'00000000','rows':{'2':[{'a':1},'00000000']}}]}"
                + " | a CRC32C is 8 hex digits, found 'an object'",
        "one CRC short of its ranks | {'schemaVersion':1,'tensors':[{'name':'w','crc32c':'00000000','columns':{'2':['00000000']}}]}"
                + " | columns of a world of 2 need 2 CRCs, found 1",
        "a world size that is not a number | {'schemaVersion':1,'tensors':[{'name':'w','crc32c':'00000000','rows':{'two':[]}}]}"
                + " | For input string: \"two\"",
        "cut short | {'schemaVersion':1,'tensors':[{'name':'w' | checks/a.safetensors: Unexpected end-of-input",
        "a short header CRC | {'schemaVersion':1,'headerCrc32c':'12','tensors':[]} | headerCrc32c: a CRC32C is 8 hex digits, found '12'",
    })
    void aMalformedTableIsAnErrorNamingTheTableAndWhatIsWrong(String why, String json, String message) {
        assertThatThrownBy(() -> parse(json)).as(why).isInstanceOf(IOException.class)
                .hasMessageStartingWith("checks/a.safetensors").hasMessageContaining(message);
    }

    @Test
    void whatItWritesItReads() throws IOException {
        TensorCrcs w = new TensorCrcs("w", 7, Map.of(2, List.of(1, 2), 4, List.of(3, 4, 5, 6)), Map.of(2, List.of(8, 9)));
        TensorCrcs norm = new TensorCrcs("norm", -1, Map.of(), Map.of());
        TensorCrcTable table = TensorCrcTable.fromJson(TensorCrcTable.of(OptionalInt.empty(), List.of(w, norm)).toJson(), "t");
        assertThat(table.tensor("w")).hasValue(w);
        assertThat(table.tensor("norm")).hasValue(norm);
        assertThat(new String(TensorCrcTable.of(OptionalInt.empty(), List.of(norm)).toJson(), StandardCharsets.UTF_8))
                .isEqualTo("{\"schemaVersion\":1,\"tensors\":[{\"name\":\"norm\",\"crc32c\":\"ffffffff\",\"rows\":{},\"columns\":{}}]}");
        assertThat(table.headerCrc32c()).as("a table written before it recorded its header's CRC").isEmpty();
        TensorCrcTable withHeader = TensorCrcTable.fromJson(TensorCrcTable.of(OptionalInt.of(0x89abcdef), List.of(norm)).toJson(), "t");
        assertThat(withHeader.headerCrc32c()).hasValue(0x89abcdef);
    }
}
