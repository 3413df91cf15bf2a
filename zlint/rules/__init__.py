"""Every zlint rule. Add a rule by writing its module and listing its class here."""

from __future__ import annotations

from zlint.rules.base import Rule
from zlint.rules.zl101_size_compared_with_zero_or_one import SizeComparedWithZeroOrOne
from zlint.rules.zl102_size_truthiness import SizeTruthiness
from zlint.rules.zl103_size_compared_with_constant import SizeComparedWithConstant
from zlint.rules.zl104_size_zero_branch_with_size_oblivious import SizeZeroBranchWithSizeOblivious
from zlint.rules.zl201_loop_over_size import LoopOverSize
from zlint.rules.zl202_tensor_iteration import TensorIteration
from zlint.rules.zl203_tensor_unpacking import TensorUnpacking
from zlint.rules.zl204_output_count_depends_on_size import OutputCountDependsOnSize
from zlint.rules.zl205_size_as_container_key import SizeAsContainerKey
from zlint.rules.zl206_size_formatted_into_string import SizeFormattedIntoString
from zlint.rules.zl207_size_to_python_number import SizeToPythonNumber
from zlint.rules.zl208_squeeze_without_dim import SqueezeWithoutDim
from zlint.rules.zl209_branch_on_layout import BranchOnLayout
from zlint.rules.zl301_tensor_item import TensorItem
from zlint.rules.zl302_tensor_tolist import TensorTolist
from zlint.rules.zl303_branch_on_tensor_value import BranchOnTensorValue
from zlint.rules.zl304_nonzero import Nonzero
from zlint.rules.zl305_boolean_mask_indexing import BooleanMaskIndexing
from zlint.rules.zl306_unique_or_bincount import UniqueOrBincount
from zlint.rules.zl307_repeat_interleave_without_output_size import RepeatInterleaveWithoutOutputSize
from zlint.rules.zl401_missing_mark_dynamic import MissingMarkDynamic
from zlint.rules.zl402_mark_dynamic_in_compiled_code import MarkDynamicInCompiledCode
from zlint.rules.zl403_mark_dynamic_on_specialized_dim import MarkDynamicOnSpecializedDim
from zlint.rules.zl404_static_compile_with_varying_sizes import StaticCompileWithVaryingSizes
from zlint.rules.zl405_export_dim_min_zero_or_one import ExportDimMinZeroOrOne
from zlint.rules.zl406_export_example_size_one import ExportExampleSizeOne
from zlint.rules.zl410_compile_mode_with_options import CompileModeWithOptions
from zlint.rules.zl411_unknown_compile_mode import UnknownCompileMode
from zlint.rules.zl412_unknown_compile_backend import UnknownCompileBackend
from zlint.rules.zl413_unknown_inductor_option import UnknownInductorOption
from zlint.rules.zl414_unknown_compile_argument import UnknownCompileArgument
from zlint.rules.zl415_unknown_torch_attribute import UnknownTorchAttribute
from zlint.rules.zl416_cudagraphs_with_dynamic_shapes import CudagraphsWithDynamicShapes
from zlint.rules.zl417_raised_recompile_limit import RaisedRecompileLimit
from zlint.rules.zl418_blanket_dynamic_true import BlanketDynamicTrue
from zlint.rules.zl419_inductor_option_wrong_type import InductorOptionWrongType
from zlint.rules.zl000_file_not_linted import FileNotLinted
from zlint.rules.zl80x_runtime import RUNTIME_RULES
from zlint.rules.zl901_unused_noqa import UnusedNoqa

ALL_RULES: tuple[type[Rule], ...] = (
    FileNotLinted,  # yielded by the flake8 plugin only
    SizeComparedWithZeroOrOne,
    SizeTruthiness,
    SizeComparedWithConstant,
    SizeZeroBranchWithSizeOblivious,
    LoopOverSize,
    TensorIteration,
    TensorUnpacking,
    OutputCountDependsOnSize,
    SizeAsContainerKey,
    SizeFormattedIntoString,
    SizeToPythonNumber,
    SqueezeWithoutDim,
    BranchOnLayout,
    TensorItem,
    TensorTolist,
    BranchOnTensorValue,
    Nonzero,
    BooleanMaskIndexing,
    UniqueOrBincount,
    RepeatInterleaveWithoutOutputSize,
    MissingMarkDynamic,
    MarkDynamicInCompiledCode,
    MarkDynamicOnSpecializedDim,
    StaticCompileWithVaryingSizes,
    ExportDimMinZeroOrOne,
    ExportExampleSizeOne,
    CompileModeWithOptions,
    UnknownCompileMode,
    UnknownCompileBackend,
    UnknownInductorOption,
    UnknownCompileArgument,
    UnknownTorchAttribute,
    CudagraphsWithDynamicShapes,
    RaisedRecompileLimit,
    BlanketDynamicTrue,
    InductorOptionWrongType,
    *RUNTIME_RULES,  # reported by --verify only
    UnusedNoqa,
)

__all__ = ["ALL_RULES", "Rule"]
