import CollabCore
import Foundation
import Testing

@Suite("Call ids")
struct CallIDTests {
    @Test("call ids are version-4 UUIDs in Foundation's canonical form, so a device hands them to CallKit unchanged")
    func canonicalUUIDs() {
        let ids = EntityIDGenerator.system
        var seen = Set<String>()
        for _ in 0..<1_000 {
            let id = CallID.make(ids)
            #expect(UUID(uuidString: id)?.uuidString == id)
            #expect(CallID.isValid(id))
            let characters = Array(id)
            #expect(characters[14] == "4", "version 4")
            #expect("89AB".contains(characters[19]), "RFC 9562 variant")
            seen.insert(id)
        }
        #expect(seen.count == 1_000)
    }

    @Test("the same random source gives the same ids (reproducible tests and seeds)")
    func injectedRandomness() {
        let zeros = EntityIDGenerator { 0 }
        #expect(CallID.make(zeros) == "00000000-0000-4000-8000-000000000000")
    }

    @Test("only the 8-4-4-4-12 hexadecimal form is a call id")
    func validation() {
        #expect(CallID.isValid("5a0c8f9e-1b2c-4d3e-8f90-a1b2c3d4e5f6"))
        for bad in [
            "", "not-a-uuid", "5A0C8F9E1B2C4D3E8F90A1B2C3D4E5F6", "5A0C8F9E-1B2C-4D3E-8F90-A1B2C3D4E5F", "5A0C8F9E-1B2C-4D3E-8F90-A1B2C3D4E5FG",
            "{5A0C8F9E-1B2C-4D3E-8F90-A1B2C3D4E5F6}", "5A0C8F9E_1B2C-4D3E-8F90-A1B2C3D4E5F6", "Bq3x0aZ1c2d3e4f5g6h7i8",
        ] {
            #expect(!CallID.isValid(bad), "\(bad)")
        }
    }
}
